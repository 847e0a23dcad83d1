// Basic auth of the public API (docs/public-api.md "Authentication"):
// `Authorization: Basic base64(<public key>:<secret key>)`. The key is found by its public key and the secret compared
// in constant time; messages follow Langfuse's so SDK users recognise them.
import type { Queryable } from '../../src/platform/store/database.ts';
import { findApiKeyByPublicKey, secretMatches, type ApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { getProject, type Project } from '../../src/platform/store/repos/projects.ts';
import { PublicApiError } from './public-error.ts';

/** The key a request authenticated with, and its project for a project key. */
export interface PublicPrincipal {
  apiKey: ApiKey;
  project?: Project;
}

export const AUTH_MESSAGES = {
  noHeader: 'No authorization header',
  badHeader: 'Invalid authorization header',
  publicKeyOnly:
    'Access denied - this API needs both the public key and the secret key, sent with Basic auth: Authorization: Basic base64(<public key>:<secret key>).',
  invalidCredentials: "Invalid credentials. Confirm that you've configured the correct host.",
  expired: 'API key has expired.',
} as const;

const unauthorized = (message: string) => new PublicApiError('UnauthorizedError', message);

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The key pair of a Basic header; throws the 401 the header deserves. */
export function parseAuthorization(header: string | undefined): { publicKey: string; secretKey: string } {
  if (header === undefined || header.trim() === '') throw unauthorized(AUTH_MESSAGES.noHeader);
  const match = /^(\S+)(?:\s+(\S*))?\s*$/.exec(header.trim());
  const scheme = match?.[1].toLowerCase();
  const value = match?.[2] ?? '';
  if (scheme === 'bearer') throw unauthorized(value === '' ? AUTH_MESSAGES.badHeader : AUTH_MESSAGES.publicKeyOnly);
  if (scheme !== 'basic') throw unauthorized(AUTH_MESSAGES.badHeader);
  if (!BASE64.test(value)) throw unauthorized(AUTH_MESSAGES.invalidCredentials);
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const publicKey = colon === -1 ? decoded : decoded.slice(0, colon);
  const secretKey = colon === -1 ? '' : decoded.slice(colon + 1);
  if (publicKey === '') throw unauthorized(AUTH_MESSAGES.invalidCredentials);
  // Langfuse lets a public key alone through for score writes; svc refuses it everywhere.
  if (secretKey === '') throw unauthorized(AUTH_MESSAGES.publicKeyOnly);
  return { publicKey, secretKey };
}

/** Checks the header against the store; `now` decides expiry. */
export async function authenticate(db: Queryable, header: string | undefined, now: number): Promise<PublicPrincipal> {
  const { publicKey, secretKey } = parseAuthorization(header);
  const apiKey = await findApiKeyByPublicKey(db, publicKey);
  if (!apiKey || !secretMatches(apiKey, secretKey)) throw unauthorized(AUTH_MESSAGES.invalidCredentials);
  // Checked after the secret, so only the key's holder learns that it expired.
  if (Date.parse(apiKey.expiresAt) <= now) throw unauthorized(AUTH_MESSAGES.expired);
  if (apiKey.kind === 'organization') return { apiKey };
  const project = apiKey.projectId === undefined ? undefined : await getProject(db, apiKey.projectId);
  if (!project) throw unauthorized(AUTH_MESSAGES.invalidCredentials);
  return { apiKey, project };
}
