// What an organization API key may do to dashboard users, for the memberships routes and SCIM alike: it never grants
// the owner role nor changes or removes an owner, so a leaked key cannot take over the dashboard.
import type { FastifyRequest } from 'fastify';
import type { ChangedBy } from '../../src/observability/users/change-user.ts';
import type { Role, User } from '../../src/platform/store/repos/users.ts';
import { PublicApiError } from './public-error.ts';
import { principalOf } from './route-access.ts';

const OWNERS_ELSEWHERE = 'an owner manages owners in the dashboard';

/** Refuses the owner role: an organization key grants at most admin. */
export function refuseOwnerRole(role: Role | undefined): void {
  if (role === 'owner')
    throw new PublicApiError(
      'ForbiddenError',
      `An organization API key cannot grant the owner role; ${OWNERS_ELSEWHERE}`,
    );
}

/** Refuses to change or remove an owner with an organization key. */
export function refuseOwner(user: User): void {
  if (user.role === 'owner')
    throw new PublicApiError(
      'ForbiddenError',
      `${user.email} is an owner: an organization API key cannot change or remove them; ${OWNERS_ELSEWHERE}`,
    );
}

/** The audit actor and organization of the calling organization key; it may not touch owners. */
export function keyChangedBy(req: FastifyRequest): ChangedBy {
  const { apiKey } = principalOf(req);
  return { actor: `api-key:${apiKey.id}`, organizationId: apiKey.organizationId, allow: refuseOwner };
}
