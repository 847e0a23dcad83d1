// PUT /dashboard/api/session/password: the signed-in user (any role) changes their own password. The current password
// is checked as sign-in checks it and counted by the same limiter for the user's email, so the route cannot be used to
// guess it. Success ends every session of the user and answers a fresh session cookie and CSRF token.
import type { FastifyInstance } from 'fastify';
import { changeOwnPassword, newPasswordProblem } from '../../../src/observability/users/change-password.ts';
import type { SignInLimiter } from '../../../src/observability/users/sign-in-limiter.ts';
import type { AdminContext } from '../../context.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { limitedPasswordCheck } from '../limited-password-check.ts';
import { newSessionAnswer, sessionLifetimeMs } from '../session-cookie.ts';
import { dashboardActor, requireSession, sessionOf } from '../session-guard.ts';

const PASSWORD_SCHEMA = {
  type: 'object',
  required: ['currentPassword', 'newPassword'],
  additionalProperties: false,
  // Bounds the hashing work; the new password's own rule (12..200) answers with a message of its own.
  properties: {
    currentPassword: { type: 'string', maxLength: 1024 },
    newPassword: { type: 'string', maxLength: 1024 },
  },
} as const;

export function registerPasswordRoute(app: FastifyInstance, ctx: AdminContext, limiter: SignInLimiter): void {
  app.put<{ Body: { currentPassword: string; newPassword: string } }>(
    '/session/password',
    { onRequest: requireSession(ctx, 'viewer'), schema: { body: PASSWORD_SCHEMA } },
    async (req, reply) => {
      const { user } = sessionOf(req);
      const { currentPassword, newPassword } = req.body;
      const problem = newPasswordProblem(currentPassword, newPassword);
      if (problem) throw new DashboardApiError('invalid_request', problem);
      const lifetimeMs = sessionLifetimeMs(ctx.config());
      const now = ctx.clock.now();
      const session = await limitedPasswordCheck(limiter, user.email, now, () =>
        changeOwnPassword(
          ctx.db,
          { userId: user.id, email: user.email, currentPassword, newPassword },
          {
            actor: dashboardActor(user),
            organizationId: ctx.config().organization.id,
            now,
            sessionLifetimeMs: lifetimeMs,
          },
        ),
      );
      if (!session) throw new DashboardApiError('invalid_credentials', 'The current password is wrong');
      return newSessionAnswer(reply, user, session, lifetimeMs);
    },
  );
}
