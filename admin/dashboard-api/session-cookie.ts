// The dashboard session cookie `svc_session`: HttpOnly, SameSite=Strict, scoped to /dashboard. No `Secure` flag: the
// admin listener speaks plain HTTP unless a TLS proxy fronts it (docs/dashboard.md).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../../src/platform/config/types.ts';
import type { SessionUser } from '../../src/platform/store/repos/dashboard-sessions.ts';

export const SESSION_COOKIE = 'svc_session';

const ATTRIBUTES = 'Path=/dashboard; HttpOnly; SameSite=Strict';

export const sessionCookie = (token: string, maxAgeSeconds: number) =>
  `${SESSION_COOKIE}=${token}; ${ATTRIBUTES}; Max-Age=${maxAgeSeconds}`;

export const clearedSessionCookie = () => `${SESSION_COOKIE}=; ${ATTRIBUTES}; Max-Age=0`;

/** The session token the request's Cookie header carries, if any. */
export function sessionTokenOf(req: FastifyRequest): string | undefined {
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) return pair.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** How long a new session lasts (`dashboard.session_hours`). */
export const sessionLifetimeMs = (config: GatewayConfig): number => config.dashboard.session_hours * 3_600_000;

/** Answers with a session just created: its cookie, no caching, the user and the session's CSRF token. */
export function newSessionAnswer(
  reply: FastifyReply,
  user: SessionUser,
  session: { token: string; csrfToken: string },
  lifetimeMs: number,
) {
  reply
    .header('set-cookie', sessionCookie(session.token, Math.floor(lifetimeMs / 1000)))
    .header('cache-control', 'no-store');
  return { user: sessionUser(user), csrfToken: session.csrfToken };
}

/** The user as the session answers show it. */
export const sessionUser = ({ id, email, name, role }: SessionUser): SessionUser => ({ id, email, name, role });
