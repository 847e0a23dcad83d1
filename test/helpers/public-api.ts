// A service with the three key kinds the public API tests need (a project key, a key of an ingestion-only project, an
// organization key) and a small client that answers status and parsed body.
import { createApiKey, type CreatedApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { baseConfig, startTestService, type TestService } from './service.ts';
import type { StoreBackend } from './store.ts';

export const basicAuth = (k: Pick<CreatedApiKey, 'publicKey' | 'secretKey'>) =>
  `Basic ${Buffer.from(`${k.publicKey}:${k.secretKey}`).toString('base64')}`;

/** A new key of the project `default`. */
export const defaultProjectKey = (s: Pick<TestService, 'service'>) =>
  createApiKey(s.service.db, { kind: 'project', organizationId: 'default', projectId: 'default', now: Date.now() });

/** Projects `default` and `ingest` (ingestion-only), with a key for each and an organization key. */
export async function startPublicApiService(t: { teardown(fn: () => unknown): void }, backend: StoreBackend) {
  const s = await startTestService(
    t,
    baseConfig({
      projects: [
        { id: 'default', name: 'Default' },
        { id: 'ingest', ingestion_only: true },
      ],
    }),
    { backend },
  );
  const db = s.service.db;
  const now = Date.now();
  const key = await createApiKey(db, { kind: 'project', organizationId: 'default', projectId: 'default', now });
  const ingestKey = await createApiKey(db, { kind: 'project', organizationId: 'default', projectId: 'ingest', now });
  const orgKey = await createApiKey(db, { kind: 'organization', organizationId: 'default', now });
  return { s, db, key, ingestKey, orgKey };
}

/** A request to the admin listener; a string body is sent as is (JSON content type), anything else as JSON. */
export async function callAdmin(
  s: TestService,
  method: string,
  path: string,
  authorization: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.adminUrl}${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Sends events to the Langfuse ingestion API; throws unless every one was taken (207 without errors). */
export async function ingest(
  adminUrl: string,
  key: Pick<CreatedApiKey, 'publicKey' | 'secretKey'>,
  batch: unknown[],
): Promise<void> {
  const res = await fetch(`${adminUrl}/api/public/ingestion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: basicAuth(key) },
    body: JSON.stringify({ batch }),
  });
  const body = (await res.json()) as { errors: unknown[] };
  if (res.status !== 207 || body.errors.length > 0)
    throw new Error(`ingestion answered ${res.status}: ${JSON.stringify(body)}`);
}
