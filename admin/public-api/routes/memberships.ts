// Organization memberships under {base_url}/api/public (Langfuse's paths and shapes; organization key): the users of the
// one organization and their role, upper case as Langfuse writes it. A project's memberships mirror the organization's
// (no project-level roles here), so that path is read-only. Removing a membership removes the user. An organization key
// never makes, changes or removes an owner (403), so a leaked key cannot take over the dashboard. Changes write audit
// rows (src/observability/users/change-user.ts).
import type { FastifyInstance } from 'fastify';
import deleteSchema from '../../../schemas/api/public-membership-delete.json' with { type: 'json' };
import upsertSchema from '../../../schemas/api/public-membership-upsert.json' with { type: 'json' };
import { changeUser, LastOwnerError, removeUser } from '../../../src/observability/users/change-user.ts';
import { listUsers, type Role, type User } from '../../../src/platform/store/repos/users.ts';
import type { AdminContext } from '../../context.ts';
import { keyChangedBy, refuseOwnerRole } from '../organization-key.ts';
import { PublicApiError } from '../public-error.ts';
import { principalOf, requireKey } from '../route-access.ts';
import { ownProject } from './organization.ts';

type LangfuseRole = 'OWNER' | 'ADMIN' | 'MEMBER' | 'VIEWER';

const membershipBody = (u: User) => ({
  userId: u.id,
  role: u.role.toUpperCase() as LangfuseRole,
  email: u.email,
  name: u.name,
});

const notFound = (userId: string) =>
  new PublicApiError('NotFoundError', `User ${userId} not found in this organization`);

/** Runs a user change, turning the last-owner refusal into a 409. */
async function guardLastOwner<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof LastOwnerError) throw new PublicApiError('ConflictError', err.message);
    throw err;
  }
}

export function registerPublicMemberships(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'organization');
  const memberships = async () => ({ memberships: (await listUsers(ctx.db)).users.map(membershipBody) });

  app.get('/organizations/memberships', { onRequest }, memberships);

  app.put<{ Body: { userId: string; role: LangfuseRole } }>(
    '/organizations/memberships',
    { onRequest, schema: { body: upsertSchema } },
    async (req) => {
      const role = req.body.role.toLowerCase() as Role;
      refuseOwnerRole(role);
      const user = await guardLastOwner(() => changeUser(ctx.db, req.body.userId, { role }, keyChangedBy(req)));
      if (!user) throw notFound(req.body.userId);
      return membershipBody(user);
    },
  );

  app.delete<{ Body: { userId: string } }>(
    '/organizations/memberships',
    { onRequest, schema: { body: deleteSchema } },
    async (req) => {
      const removed = await guardLastOwner(() => removeUser(ctx.db, req.body.userId, keyChangedBy(req)));
      if (!removed) throw notFound(req.body.userId);
      return { message: 'Membership deleted successfully', userId: removed.id };
    },
  );

  app.get<{ Params: { projectId: string } }>('/projects/:projectId/memberships', { onRequest }, async (req) => {
    await ownProject(ctx.db, principalOf(req).apiKey.organizationId, req.params.projectId);
    return memberships();
  });
}
