// POST/GET/DELETE /dashboard/api/session: sign-in (email and password, limited per email and in concurrent password
// checks: src/observability/users/sign-in-limiter.ts), the current session, sign-out; PUT /session/password (password.ts)
// shares the limiter. Sign-in and sign-out write audit rows; every failed sign-in answers the same 401
// invalid_credentials.
import type { FastifyInstance } from 'fastify';
import { writeAudit } from '../../../src/platform/store/repos/audit-log.ts';
import { checkCredentials } from '../../../src/observability/users/credentials.ts';
import { createSession, deleteSession } from '../../../src/platform/store/repos/dashboard-sessions.ts';
import { SignInLimiter } from '../../../src/observability/users/sign-in-limiter.ts';
import type { AdminContext } from '../../context.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { limitedPasswordCheck } from '../limited-password-check.ts';
import { registerPasswordRoute } from './password.ts';
import {
  clearedSessionCookie,
  newSessionAnswer,
  sessionLifetimeMs,
  sessionTokenOf,
  sessionUser,
} from '../session-cookie.ts';
import { dashboardActor, requireSession, sessionOf } from '../session-guard.ts';

const SIGN_IN_SCHEMA = {
  type: 'object',
  required: ['email', 'password'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', minLength: 1, maxLength: 320 },
    password: { type: 'string', maxLength: 1024 },
  },
} as const;

export function registerSessionRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const limiter = new SignInLimiter();
  const organizationId = () => ctx.config().organization.id;

  app.post<{ Body: { email: string; password: string } }>(
    '/session',
    { schema: { body: SIGN_IN_SCHEMA } },
    async (req, reply) => {
      const { email, password } = req.body;
      const user = await limitedPasswordCheck(limiter, email, ctx.clock.now(), () =>
        checkCredentials(ctx.db, email, password),
      );
      if (!user) throw new DashboardApiError('invalid_credentials', 'Wrong email or password');
      const lifetimeMs = sessionLifetimeMs(ctx.config());
      const session = await ctx.db.transaction(async (tx) => {
        const created = await createSession(tx, user.id, ctx.clock.now(), lifetimeMs);
        await writeAudit(tx, {
          organizationId: organizationId(),
          actor: dashboardActor(user),
          action: 'user.sign_in',
          resourceType: 'user',
          resourceId: user.id,
        });
        return created;
      });
      return newSessionAnswer(reply, user, session, lifetimeMs);
    },
  );

  app.get('/session', { onRequest: requireSession(ctx, 'viewer') }, async (req, reply) => {
    const { user, csrfToken } = sessionOf(req);
    reply.header('cache-control', 'no-store');
    return { user: sessionUser(user), csrfToken };
  });

  app.delete('/session', { onRequest: requireSession(ctx, 'viewer') }, async (req, reply) => {
    const { user } = sessionOf(req);
    await ctx.db.transaction(async (tx) => {
      await deleteSession(tx, sessionTokenOf(req)!);
      await writeAudit(tx, {
        organizationId: organizationId(),
        actor: dashboardActor(user),
        action: 'user.sign_out',
        resourceType: 'user',
        resourceId: user.id,
      });
    });
    return reply.header('set-cookie', clearedSessionCookie()).code(204).send();
  });

  registerPasswordRoute(app, ctx, limiter);
}
