// Who a REST API request is (docs/rest-api.md "Authentication"): `Authorization: Bearer <secret key>`, or, as the
// public API takes it, `Basic base64(<public key>:<secret key>)` with the same project keys: accepting both lets one
// key pair serve both surfaces.
import type { Queryable } from '../../src/platform/store/database.ts';
import {
  findApiKeyByPublicKey,
  findApiKeyBySecret,
  secretMatches,
  type ApiKey,
} from '../../src/platform/store/repos/api-keys.ts';
import { getProject, type Project } from '../../src/platform/store/repos/projects.ts';
import { RestApiError } from './rest-error.ts';

export interface RestPrincipal {
  apiKey: ApiKey;
  /** Set for a project key. */
  project?: Project;
}

export const AUTH_MESSAGES = {
  missing: 'Missing Authorization header; send Authorization: Bearer <secret key>.',
  malformed:
    'Malformed Authorization header; send Authorization: Bearer <secret key> or Basic base64(<public key>:<secret key>).',
  publicKeyOnly: 'A public key alone is not accepted; send the secret key as Bearer, or both keys with Basic auth.',
  invalid: 'Invalid API key.',
  expired: 'API key has expired.',
} as const;

const fail = (message: string) => new RestApiError('authentication_failed', message);

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

type Credentials = { secretKey: string; publicKey?: string };

function parseAuthorization(header: string | undefined): Credentials {
  if (header === undefined || header.trim() === '') throw fail(AUTH_MESSAGES.missing);
  const match = /^(\S+)\s+(\S+)$/.exec(header.trim());
  if (!match) throw fail(AUTH_MESSAGES.malformed);
  const scheme = match[1].toLowerCase();
  const value = match[2];
  if (scheme === 'bearer') {
    if (value.startsWith('pk-')) throw fail(AUTH_MESSAGES.publicKeyOnly);
    return { secretKey: value };
  }
  if (scheme !== 'basic' || !BASE64.test(value)) throw fail(AUTH_MESSAGES.malformed);
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // A NUL cannot be in a key, and the store would refuse it as a query parameter.
  if (colon <= 0 || decoded.includes('\u0000')) throw fail(AUTH_MESSAGES.malformed);
  const secretKey = decoded.slice(colon + 1);
  if (secretKey === '') throw fail(AUTH_MESSAGES.publicKeyOnly);
  return { publicKey: decoded.slice(0, colon), secretKey };
}

async function findKey(db: Queryable, c: Credentials): Promise<ApiKey | undefined> {
  if (c.publicKey === undefined) return findApiKeyBySecret(db, c.secretKey);
  const key = await findApiKeyByPublicKey(db, c.publicKey);
  return key && secretMatches(key, c.secretKey) ? key : undefined;
}

/** The key behind the header, checked against the store; `now` (epoch ms) decides expiry. Throws the 401. */
export async function authenticate(db: Queryable, header: string | undefined, now: number): Promise<RestPrincipal> {
  const apiKey = await findKey(db, parseAuthorization(header));
  if (!apiKey) throw fail(AUTH_MESSAGES.invalid);
  // Checked after the secret, so only the key's holder learns that it expired.
  if (Date.parse(apiKey.expiresAt) <= now) throw fail(AUTH_MESSAGES.expired);
  if (apiKey.kind !== 'project') return { apiKey };
  const project = apiKey.projectId === undefined ? undefined : await getProject(db, apiKey.projectId);
  if (!project) throw fail(AUTH_MESSAGES.invalid);
  return { apiKey, project };
}

export const ACCESS_MESSAGES = {
  organizationKey: 'The REST API needs a project API key; an organization API key was sent.',
  ingestionOnly:
    'This project is ingestion-only: its API keys may create and update traces and spans but not read them.',
} as const;

const READ_METHODS = new Set(['GET', 'HEAD']);

/** The project the principal may act on with this method; throws the 403 otherwise. */
export function authorize(principal: RestPrincipal, method: string): Project {
  const { project } = principal;
  if (!project) throw new RestApiError('permission_denied', ACCESS_MESSAGES.organizationKey);
  if (project.ingestionOnly && READ_METHODS.has(method))
    throw new RestApiError('permission_denied', ACCESS_MESSAGES.ingestionOnly);
  return project;
}
