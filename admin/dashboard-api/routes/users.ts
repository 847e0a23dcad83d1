// GET/POST/PATCH /dashboard/api/users: the organization's users. Reading is for every role; adding and changing users
// is for admins, and only an owner may make or change an owner.
import type { FastifyInstance } from 'fastify';
import type { SessionUser } from '../../../src/platform/store/repos/dashboard-sessions.ts';
import {
  getUser,
  listUsers,
  type Role,
  ROLES,
  type User,
  UserExistsError,
} from '../../../src/platform/store/repos/users.ts';
import { addUser, EMAIL_PATTERN } from '../../../src/observability/users/add-user.ts';
import { changeUser, LastOwnerError } from '../../../src/observability/users/change-user.ts';
import type { AdminContext } from '../../context.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { dashboardActor, dashboardUserOf, requireSession } from '../session-guard.ts';

const CREATE_SCHEMA = {
  type: 'object',
  required: ['email', 'role'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', pattern: EMAIL_PATTERN, maxLength: 320 },
    name: { type: 'string', maxLength: 200 },
    role: { enum: ROLES },
  },
} as const;

const CHANGE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { role: { enum: ROLES }, active: { type: 'boolean' } },
} as const;

const userBody = (u: User) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  active: u.active,
  createdAt: u.createdAt,
});

function ownerOnly(by: SessionUser, role: Role | undefined): void {
  if (role === 'owner' && by.role !== 'owner')
    throw new DashboardApiError('permission_denied', 'Only an owner may make or change an owner');
}

export function registerUserRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const changedBy = (user: SessionUser) => ({
    actor: dashboardActor(user),
    organizationId: ctx.config().organization.id,
  });

  app.get('/users', { onRequest: requireSession(ctx, 'viewer') }, async () => {
    const { users } = await listUsers(ctx.db);
    return { data: users.map(userBody) };
  });

  app.post<{ Body: { email: string; name?: string; role: Role } }>(
    '/users',
    { onRequest: requireSession(ctx, 'admin'), schema: { body: CREATE_SCHEMA } },
    async (req, reply) => {
      const by = dashboardUserOf(req);
      ownerOnly(by, req.body.role);
      try {
        const { user, password } = await addUser(ctx.db, req.body, changedBy(by));
        reply.code(201).header('cache-control', 'no-store');
        return { user: userBody(user), password };
      } catch (err) {
        if (err instanceof UserExistsError) throw new DashboardApiError('conflict', err.message);
        throw err;
      }
    },
  );

  app.patch<{ Params: { id: string }; Body: { role?: Role; active?: boolean } }>(
    '/users/:id',
    { onRequest: requireSession(ctx, 'admin'), schema: { body: CHANGE_SCHEMA } },
    async (req) => {
      const by = dashboardUserOf(req);
      const target = await getUser(ctx.db, req.params.id);
      if (!target) throw new DashboardApiError('not_found', `No user ${req.params.id}`);
      ownerOnly(by, target.role);
      ownerOnly(by, req.body.role);
      try {
        const user = await changeUser(ctx.db, target.id, req.body, changedBy(by));
        if (!user) throw new DashboardApiError('not_found', `No user ${req.params.id}`);
        return { user: userBody(user) };
      } catch (err) {
        if (err instanceof LastOwnerError) throw new DashboardApiError('conflict', err.message);
        throw err;
      }
    },
  );
}
