// SCIM 2.0 under {base_url}/api/public/scim (Langfuse's paths; organization key): discovery documents and Users, for
// identity providers (Okta, Azure AD) that provision dashboard users. This scope reads application/scim+json bodies,
// answers application/scim+json, and reports every failure (a refused key too) in the SCIM error schema. Like memberships,
// SCIM never makes, changes or removes an owner; it sets passwords only on new users, members and viewers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getUser, listUsers, type User } from '../../src/platform/store/repos/users.ts';
import { addUser } from '../../src/observability/users/add-user.ts';
import { changeUser, removeUser } from '../../src/observability/users/change-user.ts';
import { roleAtLeast } from '../../src/observability/users/roles.ts';
import type { AdminContext } from '../context.ts';
import { requireKey } from '../public-api/route-access.ts';
import { keyChangedBy, refuseOwner, refuseOwnerRole } from '../public-api/organization-key.ts';
import { resourceTypes, schemas, serviceProviderConfig, userResourceType, userSchema } from './scim-discovery.ts';
import { scimErrorHandler, scimNotFoundHandler } from './error-handler.ts';
import { ScimError } from './scim-error.ts';
import { userNameFilter } from './scim-filter.ts';
import { patchFields } from './scim-patch.ts';
import { LIST_RESPONSE_SCHEMA, scimUser, scimUserFields, USER_SCHEMA, type ScimUserFields } from './scim-user.ts';

const SCIM_TYPE = 'application/scim+json; charset=utf-8';
const MAX_COUNT = 1000;

type IdParams = { id: string };

/** A SCIM list parameter (RFC 7644 §3.4.2.4): an integer, clamped to `min`; absent or not a number, `fallback`. */
function intParam(value: unknown, fallback: number, min: number): number {
  const n = Number.parseInt(String(value ?? ''), 10);
  return Number.isNaN(n) ? fallback : Math.max(min, n);
}

export function registerPublicScim(app: FastifyInstance, ctx: AdminContext): void {
  void app.register(
    (scim, _opts, done) => {
      scim.addContentTypeParser(
        'application/scim+json',
        { parseAs: 'string' },
        scim.getDefaultJsonParser('error', 'error'),
      );
      scim.addHook('onSend', async (_req, reply, payload) => {
        reply.header('content-type', SCIM_TYPE);
        return payload;
      });
      scim.setErrorHandler(scimErrorHandler(ctx.log));
      scim.setNotFoundHandler(scimNotFoundHandler);
      registerScimRoutes(scim, ctx);
      done();
    },
    { prefix: '/scim' },
  );
}

const base = (req: FastifyRequest) => `${req.protocol}://${req.host}/api/public/scim`;
const resource = (req: FastifyRequest, u: User) => scimUser(u, `${base(req)}/Users/${u.id}`);

type ListQuery = { filter?: string; startIndex?: string; count?: string };

async function existing(ctx: AdminContext, id: string): Promise<User> {
  const user = await getUser(ctx.db, id);
  if (!user) throw new ScimError(404, `User ${id} not found`);
  return user;
}

async function listScimUsers(ctx: AdminContext, req: FastifyRequest<{ Querystring: ListQuery }>) {
  const email = userNameFilter(req.query.filter);
  const startIndex = intParam(req.query.startIndex, 1, 1);
  const count = Math.min(intParam(req.query.count, 100, 0), MAX_COUNT);
  const { users, total } = await listUsers(ctx.db, { email, offset: startIndex - 1, limit: count });
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: total,
    startIndex,
    itemsPerPage: users.length,
    Resources: users.map((u) => resource(req, u)),
  };
}

async function addScimUser(ctx: AdminContext, req: FastifyRequest, reply: FastifyReply) {
  const { email, name, active, externalId, password, role } = scimUserFields(req.body);
  refuseOwnerRole(role);
  const by = keyChangedBy(req);
  const { user } = await addUser(
    ctx.db,
    { email, name, active, externalId, role: role ?? 'viewer', password: password ?? null },
    by,
  );
  const body = resource(req, user);
  return reply.code(201).header('location', body.meta.location).send(body);
}

async function changeScimUser(ctx: AdminContext, req: FastifyRequest<{ Params: IdParams }>, fields: ScimUserFields) {
  const { role: _ignored, ...rest } = fields;
  const allow = (before: User) => {
    refuseOwner(before);
    // A password set here would let the key's holder sign in as an admin.
    if (rest.password !== undefined && roleAtLeast(before.role, 'admin')) {
      throw new ScimError(403, `${before.email} is an ${before.role}: SCIM sets passwords only on members and viewers`);
    }
  };
  const user = await changeUser(ctx.db, req.params.id, rest, { ...keyChangedBy(req), allow });
  if (!user) throw new ScimError(404, `User ${req.params.id} not found`);
  return resource(req, user);
}

function registerScimRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'organization');
  app.get('/ServiceProviderConfig', { onRequest }, async (req) => serviceProviderConfig(base(req)));
  app.get('/ResourceTypes', { onRequest }, async (req) => resourceTypes(base(req)));
  app.get('/ResourceTypes/User', { onRequest }, async (req) => userResourceType(base(req)));
  app.get('/Schemas', { onRequest }, async (req) => schemas(base(req)));
  app.get(`/Schemas/${USER_SCHEMA}`, { onRequest }, async (req) => userSchema(base(req)));

  app.get<{ Querystring: ListQuery }>('/Users', { onRequest }, (req) => listScimUsers(ctx, req));
  app.get<{ Params: IdParams }>('/Users/:id', { onRequest }, async (req) =>
    resource(req, await existing(ctx, req.params.id)),
  );
  app.post('/Users', { onRequest }, (req, reply) => addScimUser(ctx, req, reply));
  // A full replace: the attributes svc keeps take the body's values (name and externalId empty when absent).
  app.put<{ Params: IdParams }>('/Users/:id', { onRequest }, async (req) => {
    const fields = scimUserFields(req.body);
    return changeScimUser(ctx, req, { name: '', externalId: '', active: true, ...fields });
  });
  app.patch<{ Params: IdParams }>('/Users/:id', { onRequest }, async (req) =>
    changeScimUser(ctx, req, patchFields(req.body)),
  );
  app.delete<{ Params: IdParams }>('/Users/:id', { onRequest }, async (req, reply) => {
    if (!(await removeUser(ctx.db, req.params.id, keyChangedBy(req))))
      throw new ScimError(404, `User ${req.params.id} not found`);
    return reply.code(204).send();
  });
}
