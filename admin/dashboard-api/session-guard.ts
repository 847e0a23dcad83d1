// The checks every dashboard data route makes (docs/dashboard.md "Users, roles and sessions"): a valid session cookie
// (401 unauthenticated), the session's CSRF token on anything but GET and HEAD (403 csrf_failed), and a role at least
// the route's (403 permission_denied). API keys are not accepted here: only the cookie is read.
//   app.get('/projects/:project/traces', { onRequest: requireSession(ctx, 'viewer') }, async (req) => { dashboardUserOf(req) … })
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Role } from '../../src/platform/store/repos/users.ts';
import { roleAtLeast } from '../../src/observability/users/roles.ts';
import { findSession, type Session, type SessionUser } from '../../src/platform/store/repos/dashboard-sessions.ts';
import type { AdminContext } from '../context.ts';
import { DashboardApiError } from './dashboard-error.ts';
import { sessionTokenOf } from './session-cookie.ts';

export const CSRF_HEADER = 'x-svc-csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

const sessions = new WeakMap<FastifyRequest, Session>();

function csrfMatches(sent: string | string[] | undefined, expected: string): boolean {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The onRequest hook of a dashboard route that `minRole` and every role above it may call. */
export function requireSession(ctx: AdminContext, minRole: Role): onRequestAsyncHookHandler {
  return async (req) => {
    const token = sessionTokenOf(req);
    const session = token === undefined ? undefined : await findSession(ctx.db, token, ctx.clock.now());
    if (!session) throw new DashboardApiError('unauthenticated', 'Not signed in, or the session has expired');
    if (!SAFE_METHODS.has(req.method) && !csrfMatches(req.headers[CSRF_HEADER], session.csrfToken)) {
      throw new DashboardApiError(
        'csrf_failed',
        `A change needs the session's CSRF token in the ${CSRF_HEADER} header`,
      );
    }
    if (!roleAtLeast(session.user.role, minRole))
      throw new DashboardApiError(
        'permission_denied',
        `This needs the ${minRole} role or above; you are ${session.user.role}`,
      );
    sessions.set(req, session);
  };
}

/** The signed-in user; only in handlers of routes that have a `requireSession` hook. */
export function dashboardUserOf(req: FastifyRequest): SessionUser {
  return sessionOf(req).user;
}

/** The whole session (user, CSRF token, expiry) `requireSession` found. */
export function sessionOf(req: FastifyRequest): Session {
  const session = sessions.get(req);
  if (!session) throw new Error(`route ${req.method} ${req.url} has no requireSession hook`);
  return session;
}

/** The audit-log actor of the signed-in user. */
export const dashboardActor = (user: Pick<SessionUser, 'email'>) => `dashboard:${user.email}`;
