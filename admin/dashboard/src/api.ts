// The dashboard's data routes (docs/dashboard.md): cookie session, `x-svc-csrf` on every change, error envelope.

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let csrfToken = '';
let onUnauthenticated: () => void = () => {};

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Called when a request answers 401 `unauthenticated` (the session expired or was signed out elsewhere). */
export function whenUnauthenticated(fn: () => void): void {
  onUnauthenticated = fn;
}

export type Query = Record<string, string | number | undefined | null>;

export function withQuery(path: string, query: Query = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD') headers['x-svc-csrf'] = csrfToken;
  const res = await fetch(`/dashboard/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let parsed: any = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const code = parsed?.error?.code ?? `http_${res.status}`;
    const message = parsed?.error?.message ?? (text.slice(0, 200) || res.statusText);
    if (res.status === 401 && code === 'unauthenticated' && path !== '/session') onUnauthenticated();
    throw new ApiError(res.status, code, message);
  }
  return parsed as T;
}

export const get = <T>(path: string, query?: Query) => request<T>('GET', withQuery(path, query));
export const post = <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {});
export const put = <T>(path: string, body: unknown) => request<T>('PUT', path, body);
export const patch = <T>(path: string, body: unknown) => request<T>('PATCH', path, body);
export const del = <T = void>(path: string) => request<T>('DELETE', path);

/** A project-scoped path: `/projects/<id>/…` with the id encoded. */
export const inProject = (project: string, rest = '') => `/projects/${encodeURIComponent(project)}${rest}`;
