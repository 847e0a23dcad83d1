// The dashboard session cookie `svc_session`: HttpOnly, SameSite=Strict, scoped to /dashboard. No `Secure` flag: the
// admin listener speaks plain HTTP unless a TLS proxy fronts it (docs/dashboard.md).
import type { FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'svc_session';

const ATTRIBUTES = 'Path=/dashboard; HttpOnly; SameSite=Strict';

export const sessionCookie = (token: string, maxAgeSeconds: number) => `${SESSION_COOKIE}=${token}; ${ATTRIBUTES}; Max-Age=${maxAgeSeconds}`;

export const clearedSessionCookie = () => `${SESSION_COOKIE}=; ${ATTRIBUTES}; Max-Age=0`;

/** The session token the request's Cookie header carries, if any. */
export function sessionTokenOf(req: FastifyRequest): string | undefined {
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) return pair.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}
