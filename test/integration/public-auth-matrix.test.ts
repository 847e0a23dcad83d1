// The public API's key rules (docs/public-api.md, Authentication and Route classes) over every route: no key, a public
// key alone (Bearer), an expired key and a wrong secret are 401; an organization key on a project route is 401 asking
// about organization keys (403 on prompt routes); a project key on an organization route is 403; an ingestion-only
// project's key is 403 where it may not read or manage. A route that did not exist would answer 404 before any key
// check, so the first 401 also shows the route is served. One backend: the rules live above the store.
import t from 'tap';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { basicAuth as auth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';

type RouteClass = 'project' | 'ingestion-write' | 'prompt' | 'organization';

/** Every public route, with a body that gets past the framing checks where one is needed. */
const ROUTES: [string, string, RouteClass, unknown?][] = [
  ['GET', '/traces', 'project'],
  ['GET', '/traces/tr-1', 'project'],
  ['DELETE', '/traces/tr-1', 'project'],
  ['DELETE', '/traces', 'project', { traceIds: ['tr-1'] }],
  ['GET', '/observations', 'project'],
  ['GET', '/observations/ob-1', 'project'],
  ['GET', '/v2/observations', 'project'],
  ['GET', '/sessions', 'project'],
  ['GET', '/sessions/s-1', 'project'],
  ['GET', '/scores', 'project'],
  ['GET', '/v2/scores', 'project'],
  ['GET', '/scores/sc-1', 'project'],
  ['DELETE', '/scores/sc-1', 'project'],
  ['POST', '/scores', 'ingestion-write', { traceId: 'tr-1', name: 'q', value: 1 }],
  ['POST', '/ingestion', 'ingestion-write', { batch: [] }],
  ['POST', '/otel/v1/traces', 'ingestion-write', { resourceSpans: [] }],
  ['GET', '/score-configs', 'project'],
  ['POST', '/score-configs', 'project', { name: 'q', dataType: 'NUMERIC' }],
  ['GET', '/score-configs/c-1', 'project'],
  ['PATCH', '/score-configs/c-1', 'project', { isArchived: true }],
  ['GET', '/v2/datasets', 'project'],
  ['POST', '/v2/datasets', 'project', { name: 'd' }],
  ['GET', '/v2/datasets/d', 'project'],
  ['GET', '/datasets', 'project'],
  ['POST', '/datasets', 'project', { name: 'd' }],
  ['GET', '/datasets/d', 'project'],
  ['GET', '/datasets/d/runs', 'project'],
  ['GET', '/datasets/d/runs/r', 'project'],
  ['DELETE', '/datasets/d/runs/r', 'project'],
  ['GET', '/dataset-items', 'project'],
  ['POST', '/dataset-items', 'project', { datasetName: 'd' }],
  ['GET', '/dataset-items/i-1', 'project'],
  ['DELETE', '/dataset-items/i-1', 'project'],
  ['GET', '/dataset-run-items?datasetId=d&runName=r', 'project'],
  ['POST', '/dataset-run-items', 'project', { runName: 'r', datasetItemId: 'i-1', traceId: 'tr-1' }],
  ['GET', '/models', 'project'],
  ['POST', '/models', 'project', { modelName: 'm', matchPattern: '^m$', unit: 'TOKENS', inputPrice: 1 }],
  ['GET', '/models/m-1', 'project'],
  ['DELETE', '/models/m-1', 'project'],
  ['GET', '/llm-connections', 'project'],
  ['PUT', '/llm-connections', 'project', { provider: 'p', adapter: 'openai', secretKey: 'sk-x' }],
  ['DELETE', '/llm-connections/l-1', 'project'],
  ['GET', '/annotation-queues', 'project'],
  ['POST', '/annotation-queues', 'project', { name: 'q', scoreConfigIds: [] }],
  ['GET', '/annotation-queues/q-1', 'project'],
  ['GET', '/annotation-queues/q-1/items', 'project'],
  ['POST', '/annotation-queues/q-1/items', 'project', { objectId: 'tr-1', objectType: 'TRACE' }],
  ['GET', '/annotation-queues/q-1/items/i-1', 'project'],
  ['PATCH', '/annotation-queues/q-1/items/i-1', 'project', { status: 'COMPLETED' }],
  ['DELETE', '/annotation-queues/q-1/items/i-1', 'project'],
  ['GET', '/v2/prompts', 'prompt'],
  ['POST', '/v2/prompts', 'prompt', { name: 'p', prompt: 'hi' }],
  ['GET', '/v2/prompts/p', 'prompt'],
  ['PATCH', '/v2/prompts/p/versions/1', 'prompt', { newLabels: ['x'] }],
  ['DELETE', '/v2/prompts/p', 'prompt'],
  ['POST', '/projects', 'organization', { name: 'n' }],
  ['PUT', '/projects/default', 'organization', { name: 'Default' }],
  ['DELETE', '/projects/p-1', 'organization'],
  ['GET', '/projects/default/apiKeys', 'organization'],
  ['POST', '/projects/default/apiKeys', 'organization', {}],
  ['DELETE', '/projects/default/apiKeys/k-1', 'organization'],
  ['GET', '/organizations/memberships', 'organization'],
  ['GET', '/scim/Users', 'organization'],
  ['GET', '/scim/Users/u-1', 'organization'],
];

const ORG_KEY_ON_PROJECT_ROUTE = /Are you using an organization key\?/;

t.test('key and key-kind rules on every public route', async (t) => {
  const { s, db, key, ingestKey, orgKey } = await startPublicApiService(t, 'postgres');
  const sevenMonthsAgo = new Date();
  sevenMonthsAgo.setUTCMonth(sevenMonthsAgo.getUTCMonth() - 7);
  const expiredProjectKey = await createApiKey(db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: sevenMonthsAgo.getTime(),
  });
  const expiredOrgKey = await createApiKey(db, {
    kind: 'organization',
    organizationId: 'default',
    now: sevenMonthsAgo.getTime(),
  });

  for (const [method, path, routeClass, body] of ROUTES) {
    const name = `${method} ${path}`;
    const call = (authorization: string) => callAdmin(s, method, `/api/public${path}`, authorization, body);
    const rightKey = routeClass === 'organization' ? orgKey : key;

    // Authentication, whatever the route. SCIM routes answer in SCIM's error shape (`detail`), the rest `message`.
    const refused = async (authorization: string, status: number, text: string | RegExp, what: string) => {
      const r = await call(authorization);
      t.equal(r.status, status, `${name}: ${what}`);
      t.match(r.body?.message ?? r.body?.detail, text, `${name}: ${what} (message)`);
    };
    await refused('', 401, 'No authorization header', 'no key');
    await refused(
      `Bearer ${rightKey.publicKey}`,
      401,
      /needs both the public key and the secret key/,
      'public key alone',
    );
    await refused(
      auth({ publicKey: rightKey.publicKey, secretKey: 'wrong' }),
      401,
      /Invalid credentials/,
      'wrong secret',
    );
    await refused(
      auth(routeClass === 'organization' ? expiredOrgKey : expiredProjectKey),
      401,
      'API key has expired.',
      'expired key',
    );

    // Key kinds.
    if (routeClass === 'organization') await refused(auth(key), 403, /organization API key/, 'project key');
    else if (routeClass === 'prompt')
      await refused(auth(orgKey), 403, /project API key/, 'organization key on a prompt route');
    else await refused(auth(orgKey), 401, ORG_KEY_ON_PROJECT_ROUTE, 'organization key');
    const ingestOnly = await call(auth(ingestKey));
    if (routeClass === 'project' || (routeClass === 'prompt' && method !== 'GET')) {
      t.match(ingestOnly, { status: 403, body: { message: /ingestion-only/ } }, `${name}: ingestion-only project key`);
    } else if (routeClass !== 'organization') {
      t.not(ingestOnly.status, 403, `${name}: allowed to an ingestion-only project's key`);
    }

    // The right key passes the key checks: any answer but 401/403, and never the route-not-found answer.
    const allowed = await call(auth(rightKey));
    t.ok(
      ![401, 403].includes(allowed.status) && allowed.status < 500,
      `${name}: the right key is let through (${allowed.status})`,
    );
    t.notMatch(
      JSON.stringify(allowed.body ?? ''),
      /No public API endpoint|is not allowed on/,
      `${name}: the route exists`,
    );
  }
});

t.test('a Basic key holding U+0000 is the 401 of an unknown key, never a failed store lookup', async (t) => {
  const { s, key } = await startPublicApiService(t, 'postgres');
  const call = (authorization: string) => callAdmin(s, 'GET', '/api/public/traces', authorization);
  const unknown = await call(auth({ publicKey: 'pk-lf-unknown', secretKey: key.secretKey }));
  t.same(unknown, {
    status: 401,
    body: {
      message: "Invalid credentials. Confirm that you've configured the correct host.",
      error: 'UnauthorizedError',
    },
  });
  for (const publicKey of [`${key.publicKey}\u0000`, '\u0000', `pk-\u0000' OR '1'='1`])
    t.same(await call(auth({ publicKey, secretKey: key.secretKey })), unknown, JSON.stringify(publicKey));
  t.same(await call(auth({ publicKey: key.publicKey, secretKey: `${key.secretKey}\u0000` })), unknown, 'in the secret');
  t.equal((await call(auth(key))).status, 200, 'the key itself still works');
});
