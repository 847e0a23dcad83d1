// Service-account OAuth for Vertex: RS256 JWT assertion (signed in the worker pool) → token endpoint →
// access token, cached per service account until shortly before it expires; concurrent callers share one fetch.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DeploymentConfig } from '../../../platform/config/types.ts';
import { openAIErrorBody } from '../../../platform/errors/gateway-error.ts';
import { classifyThrown, smallBodyText } from '../http.ts';
import type { ProviderServices } from '../types.ts';
import { UpstreamError } from '../../../plugin-api/errors.ts';

export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const JWT_LIFETIME_S = 3600;
// A token is renewed this long before it expires, so no request sets out with a token about to lapse.
const RENEW_BEFORE_MS = 5 * 60_000;
// Token fetches are rare and small; a slow token endpoint must not hold a request for the whole attempt timeout.
const TOKEN_TIMEOUT_MS = 10_000;

export interface ServiceAccount {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

/** The deployment's service account (credentials_json, else credentials_file relative to gateway.yaml). Throws a reason. */
export function readServiceAccount(gcp: NonNullable<DeploymentConfig['gcp']>, baseDir: string): ServiceAccount {
  let text = gcp.credentials_json;
  if (text === undefined || text === '') {
    if (!gcp.credentials_file) throw new Error('gcp.credentials_json and gcp.credentials_file are both empty');
    try {
      text = readFileSync(resolve(baseDir, gcp.credentials_file), 'utf8');
    } catch (err) {
      throw new Error(`cannot read gcp.credentials_file: ${(err as Error).message}`);
    }
  }
  let parsed: Partial<ServiceAccount>;
  try {
    parsed = JSON.parse(text) as Partial<ServiceAccount>;
  } catch {
    throw new Error('the gcp service-account credentials are not JSON');
  }
  if (typeof parsed.client_email !== 'string' || typeof parsed.private_key !== 'string') {
    throw new Error('the gcp service-account credentials lack client_email or private_key');
  }
  return parsed as ServiceAccount;
}

export interface AccessTokens {
  /** A valid access token, from the cache or one shared fetch. */
  token(account: ServiceAccount, tokenUrl: string): Promise<string>;
  /** Forgets `token` after the provider refused it (401), unless a newer one already replaced it. */
  invalidate(account: ServiceAccount, tokenUrl: string, token: string): void;
}

interface Entry {
  token?: string;
  renewAt: number;
  pending?: Promise<string>;
}

export function accessTokens(services: ProviderServices): AccessTokens {
  const entries = new Map<string, Entry>();
  const keyOf = (a: ServiceAccount, url: string) => `${url}\n${a.client_email}\n${a.private_key_id ?? ''}`;

  async function fetchToken(account: ServiceAccount, tokenUrl: string, entry: Entry): Promise<string> {
    const { token, lifetimeMs } = await requestToken(services, account, tokenUrl);
    entry.token = token;
    entry.renewAt = services.now() + lifetimeMs - Math.min(RENEW_BEFORE_MS, lifetimeMs / 2);
    return token;
  }

  return {
    token(account, tokenUrl) {
      const key = keyOf(account, tokenUrl);
      let entry = entries.get(key);
      if (!entry) {
        entry = { renewAt: 0 };
        entries.set(key, entry);
      }
      if (entry.token !== undefined && services.now() < entry.renewAt) return Promise.resolve(entry.token);
      if (entry.pending) return entry.pending;
      const e = entry;
      const pending = fetchToken(account, tokenUrl, e).finally(() => {
        e.pending = undefined;
      });
      e.pending = pending;
      return pending;
    },
    invalidate(account, tokenUrl, token) {
      const entry = entries.get(keyOf(account, tokenUrl));
      if (entry?.token === token) {
        entry.token = undefined;
        entry.renewAt = 0;
      }
    },
  };
}

/** Trades a signed JWT assertion for an access token at the token endpoint (the JWT bearer grant). */
async function requestToken(
  services: ProviderServices,
  account: ServiceAccount,
  tokenUrl: string,
): Promise<{ token: string; lifetimeMs: number }> {
  const assertion = await signedAssertion(services, account, tokenUrl);
  const url = new URL(tokenUrl);
  let res;
  try {
    res = await services.dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      headersTimeout: TOKEN_TIMEOUT_MS,
      bodyTimeout: TOKEN_TIMEOUT_MS,
    });
  } catch (err) {
    throw classifyThrown(err, undefined);
  }
  const text = await smallBodyText(res.body);
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Reported below as a failed token request.
  }
  if (res.statusCode !== 200 || typeof body.access_token !== 'string')
    throw tokenRequestFailed(res.statusCode, body, text);
  const lifetimeMs = (typeof body.expires_in === 'number' ? body.expires_in : JWT_LIFETIME_S) * 1000;
  return { token: body.access_token, lifetimeMs };
}

/** The RS256 JWT assertion, signed in the worker pool. */
async function signedAssertion(services: ProviderServices, account: ServiceAccount, tokenUrl: string): Promise<string> {
  const iat = Math.floor(services.now() / 1000);
  return services.workers.run('signJwt', {
    privateKeyPem: account.private_key,
    keyId: account.private_key_id,
    claims: {
      iss: account.client_email,
      sub: account.client_email,
      aud: tokenUrl,
      scope: SCOPE,
      iat,
      exp: iat + JWT_LIFETIME_S,
    },
  });
}

/** The gateway's own credentials failed, not the client's: a 502 the router may retry elsewhere. */
function tokenRequestFailed(status: number, body: Record<string, unknown>, text: string): UpstreamError {
  const why =
    typeof body.error_description === 'string'
      ? body.error_description
      : typeof body.error === 'string'
        ? body.error
        : text.slice(0, 200);
  const message = `Vertex OAuth token request failed (${status}): ${why}`;
  return new UpstreamError('http', message, {
    status: 502,
    envelope: openAIErrorBody(502, 'upstream_auth_failed', message) as unknown as Record<string, unknown>,
  });
}
