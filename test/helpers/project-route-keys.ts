// The key-kind checks every `project` class route of the public API shares (docs/public-api.md "Route classes"): an
// organization key is 401 with the organization-key message, a key of an ingestion-only project 403.
import type { Test } from 'tap';
import type { CreatedApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { basicAuth, callAdmin } from './public-api.ts';
import type { TestService } from './service.ts';

/** `[method, path under /api/public, body?]` */
export type PublicRoute = [string, string, unknown?];

export async function assertProjectRouteKeys(
  t: Test,
  s: TestService,
  routes: readonly PublicRoute[],
  keys: { orgKey: CreatedApiKey; ingestKey: CreatedApiKey },
): Promise<void> {
  for (const [method, path, body] of routes) {
    const o = await callAdmin(s, method, `/api/public${path}`, basicAuth(keys.orgKey), body);
    t.same(
      o,
      {
        status: 401,
        body: { message: 'Invalid API key. Are you using an organization key?', error: 'UnauthorizedError' },
      },
      `${method} ${path} org key`,
    );
    const i = await callAdmin(s, method, `/api/public${path}`, basicAuth(keys.ingestKey), body);
    t.equal(i.status, 403, `${method} ${path} ingestion-only`);
    t.match(i.body, { error: 'ForbiddenError', message: /ingestion-only/ });
  }
}
