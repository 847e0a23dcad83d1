// A dashboard client for tests: signs in through POST /dashboard/api/session, then sends the session cookie and (on
// changes) the CSRF token with every call, as the browser front end does.
import type { TestService } from './service.ts';

export interface DashboardResponse {
  status: number;
  headers: Headers;
  body: any;
}

export interface DashboardClient {
  cookie: string;
  csrfToken: string;
  user: { id: string; email: string; name: string; role: string };
  /** A call under /dashboard/api; `csrf: false` leaves the CSRF header out. */
  call(method: string, path: string, body?: unknown, options?: { csrf?: boolean }): Promise<DashboardResponse>;
}

/** A request under /dashboard/api with the given headers; a body is sent as JSON. */
export async function dashboardRequest(
  s: Pick<TestService, 'adminUrl'>,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<DashboardResponse> {
  const res = await fetch(`${s.adminUrl}/dashboard/api${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

/** Signs in; throws when the sign-in is refused. */
export async function signIn(
  s: Pick<TestService, 'adminUrl'>,
  email: string,
  password: string,
): Promise<DashboardClient> {
  const r = await dashboardRequest(s, 'POST', '/session', {}, { email, password });
  if (r.status !== 200) throw new Error(`sign-in as ${email} answered ${r.status}: ${JSON.stringify(r.body)}`);
  const cookie = r.headers.get('set-cookie')!.split(';', 1)[0];
  const { csrfToken, user } = r.body;
  return {
    cookie,
    csrfToken,
    user,
    call: (method, path, body, options = {}) => {
      const csrf: Record<string, string> =
        options.csrf !== false && method !== 'GET' && method !== 'HEAD' ? { 'x-svc-csrf': csrfToken } : {};
      return dashboardRequest(s, method, path, { cookie, ...csrf }, body);
    },
  };
}
