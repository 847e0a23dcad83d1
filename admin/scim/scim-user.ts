// The SCIM User resource (RFC 7643 §4.1) of a svc user: userName is the email, name.formatted the name. The role is not
// part of it (memberships set roles); new SCIM users are viewers unless `roles` names another role (never owner: the
// route refuses it, scim-routes.ts).
import { isEmail } from '../../src/observability/users/add-user.ts';
import type { Role, User } from '../../src/platform/store/repos/users.ts';
import { isRole } from '../../src/observability/users/roles.ts';
import { isObject } from '../../src/platform/validation/json-object.ts';
import { invalidValue, ScimError } from './scim-error.ts';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export function scimUser(u: User, location: string) {
  return {
    schemas: [USER_SCHEMA],
    id: u.id,
    ...(u.externalId ? { externalId: u.externalId } : {}),
    userName: u.email,
    name: { formatted: u.name },
    displayName: u.name,
    emails: [{ value: u.email, type: 'work', primary: true }],
    active: u.active,
    meta: { resourceType: 'User', created: u.createdAt, lastModified: u.updatedAt, location },
  };
}

/** The user fields a SCIM body sets: from POST and PUT bodies, and from a PATCH operation's value. */
export interface ScimUserFields {
  email?: string;
  name?: string;
  active?: boolean;
  externalId?: string;
  password?: string;
  role?: Role;
}

function text(value: unknown, attribute: string): string {
  if (typeof value !== 'string') throw invalidValue(`${attribute} must be a string`);
  return value;
}

/** Booleans, and the strings "True"/"False" some identity providers (Azure AD) send. */
export function scimBoolean(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue(`${attribute} must be true or false`);
}

/** The longest address SMTP carries (RFC 5321); emails are unique in an index, which a longer text could overflow. */
const MAX_EMAIL_LENGTH = 254;

export function scimEmail(value: unknown, attribute = 'userName'): string {
  const email = text(value, attribute).trim();
  if (email.length > MAX_EMAIL_LENGTH)
    throw invalidValue(`${attribute} must be at most ${MAX_EMAIL_LENGTH} characters`);
  if (!isEmail(email)) throw invalidValue(`${attribute} must be an email address, not ${JSON.stringify(email)}`);
  return email;
}

/** A name from `name` ({formatted} or {givenName, familyName}); undefined when it has none. */
export function scimName(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  if (typeof value.formatted === 'string') return value.formatted;
  const parts = [value.givenName, value.familyName].filter((p): p is string => typeof p === 'string' && p !== '');
  return parts.length > 0 ? parts.join(' ') : undefined;
}

function scimRole(value: unknown): Role | undefined {
  if (!Array.isArray(value)) return undefined;
  const first = value.find((r) => isObject(r) && typeof r.value === 'string');
  const role = (first?.value as string | undefined)?.toLowerCase();
  if (role === undefined) return undefined;
  if (!isRole(role)) throw invalidValue(`roles: '${first.value}' is not one of OWNER, ADMIN, MEMBER, VIEWER`);
  return role;
}

/** The fields a User body (POST, PUT) sets; attributes svc does not keep are ignored. */
export function scimUserFields(body: unknown): ScimUserFields & { email: string } {
  if (!isObject(body)) throw new ScimError(400, 'The body must be a SCIM User object', 'invalidSyntax');
  const fields: ScimUserFields & { email: string } = { email: scimEmail(body.userName) };
  const name = scimName(body.name) ?? (typeof body.displayName === 'string' ? body.displayName : undefined);
  if (name !== undefined) fields.name = name;
  if (body.active !== undefined) fields.active = scimBoolean(body.active, 'active');
  if (body.externalId !== undefined) fields.externalId = text(body.externalId, 'externalId');
  if (body.password !== undefined) fields.password = text(body.password, 'password');
  const role = scimRole(body.roles);
  if (role !== undefined) fields.role = role;
  return fields;
}
