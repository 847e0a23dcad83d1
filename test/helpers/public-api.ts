// A service with the three key kinds the public API tests need (a project key, a key of an ingestion-only project, an
// organization key) and a small client that answers status and parsed body.
import { createApiKey, type CreatedApiKey } from '../../src/store/repos/api-keys.ts';
import { baseConfig, startTestService, type TestService } from './service.ts';
import type { StoreBackend } from './store.ts';

export const basicAuth = (k: Pick<CreatedApiKey, 'publicKey' | 'secretKey'>) =>
  `Basic ${Buffer.from(`${k.publicKey}:${k.secretKey}`).toString('base64')}`;

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
