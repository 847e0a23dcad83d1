// What PostgreSQL cannot store, sent to every public API write and every route with an id in its path (issue 15 item 4,
// docs/public-api.md "Errors"): U+0000 and unpaired surrogates anywhere, and strings longer than an index entry in the
// indexed fields, answer 400 in the public API's envelope naming the field, never a 500, and store nothing. Both backends.
import t, { type Test } from 'tap';
import { MAX_INDEXED_BYTES } from '../../src/platform/validation/storable-text.ts';
import { basicAuth as auth, startPublicApiService } from '../helpers/public-api.ts';
import type { TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const NUL = 'a\u0000b';
const LONE = 'a\ud800b';
/** Over PostgreSQL's btree entry limit (2,704 bytes) in UTF-8, and over ours. */
const LONG = 'é'.repeat(MAX_INDEXED_BYTES);

/** Sends `body` as JSON text (lone surrogates escaped as JSON.stringify writes them) to a raw path. */
async function send(
  s: TestService,
  method: string,
  path: string,
  authorization: string,
  body?: unknown,
): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${s.adminUrl}/api/public${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

/** A 400 in the public API's envelope (or SCIM's, under /scim) whose message (or an issue's path) names `field`. */
function refused(t: Test, r: { status: number; body: any; text: string }, field: string, what: string) {
  t.equal(r.status, 400, `${what}: 400 (got ${r.status} ${r.text.slice(0, 300)})`);
  const named = new RegExp(`(^|[^\\w])${field.replace(/[[\]]/g, '\\$&')}($|[^\\w])`);
  if (r.body?.schemas) {
    t.match(r.body, { status: '400', detail: String }, `${what}: SCIM error`);
    t.match(r.body.detail, named, `${what}: names ${field}`);
    return;
  }
  t.ok(
    typeof r.body?.message === 'string' && (typeof r.body.error === 'string' || Array.isArray(r.body.error)),
    `${what}: envelope`,
  );
  const issuePaths = Array.isArray(r.body?.error) ? r.body.error.map((i: { path: unknown[] }) => i.path.join('.')) : [];
  t.ok(
    named.test(r.body?.message ?? '') || issuePaths.some((p: string) => named.test(p)),
    `${what}: names ${field} (${r.text.slice(0, 300)})`,
  );
}

/** `[method, path, a valid body, the field to poison, whether it is indexed (over-long is refused)]` */
type Write = [string, string, Record<string, unknown>, string, boolean];

const PROJECT_WRITES: Write[] = [
  ['POST', '/v2/prompts', { name: 'p', prompt: 'text', tags: ['t'] }, 'name', true],
  ['POST', '/v2/prompts', { name: 'p', prompt: 'text', tags: ['t'] }, 'prompt', false],
  ['POST', '/v2/prompts', { name: 'p', prompt: 'text', tags: ['t'] }, 'tags', true],
  ['POST', '/v2/datasets', { name: 'd', description: 'x' }, 'name', true],
  ['POST', '/datasets', { name: 'd', description: 'x' }, 'description', false],
  ['POST', '/dataset-items', { datasetName: 'ds', id: 'i', input: 'x', sourceTraceId: 'tr' }, 'sourceTraceId', true],
  ['POST', '/dataset-items', { datasetName: 'ds', id: 'i', input: 'x' }, 'id', true],
  ['POST', '/dataset-items', { datasetName: 'ds', input: 'x' }, 'input', false],
  ['POST', '/dataset-run-items', { runName: 'r', datasetItemId: 'item', traceId: 'tr' }, 'runName', true],
  ['POST', '/dataset-run-items', { runName: 'r', datasetItemId: 'item', traceId: 'tr' }, 'traceId', false],
  ['POST', '/models', { modelName: 'm', matchPattern: '^m$', inputPrice: 1 }, 'modelName', true],
  ['POST', '/models', { modelName: 'm', matchPattern: '^m$', inputPrice: 1, tokenizerId: 'x' }, 'tokenizerId', false],
  [
    'PUT',
    '/llm-connections',
    { provider: 'p', adapter: 'openai', secretKey: 'sk-x', customModels: ['m'] },
    'provider',
    true,
  ],
  [
    'PUT',
    '/llm-connections',
    { provider: 'p', adapter: 'openai', secretKey: 'sk-x', customModels: ['m'] },
    'customModels',
    false,
  ],
  ['POST', '/score-configs', { name: 'c', dataType: 'NUMERIC', description: 'x' }, 'name', false],
  ['POST', '/score-configs', { name: 'c', dataType: 'NUMERIC', description: 'x' }, 'description', false],
  ['PATCH', '/score-configs/cfg', { description: 'x' }, 'description', false],
  ['POST', '/annotation-queues', { name: 'q', scoreConfigIds: [] }, 'name', true],
  ['POST', '/annotation-queues/queue/items', { objectId: 'tr', objectType: 'TRACE' }, 'objectId', false],
  ['POST', '/annotation-queues/queue/assignments', { userId: 'u' }, 'userId', true],
  ['DELETE', '/annotation-queues/queue/assignments', { userId: 'u' }, 'userId', true],
  ['POST', '/scores', { traceId: 'tr', name: 'q', value: 1 }, 'name', true],
  ['POST', '/scores', { traceId: 'tr', name: 'q', value: 1 }, 'traceId', true],
  ['POST', '/scores', { traceId: 'tr', name: 'q', value: 'x', dataType: 'CATEGORICAL' }, 'value', false],
  ['POST', '/v1/gateway/keys', { agentId: 'agent', modelGroups: ['demo'], expiresInHours: 1 }, 'agentId', true],
  ['DELETE', '/traces', { traceIds: ['tr'] }, 'traceIds', false],
];

const ORGANIZATION_WRITES: Write[] = [
  ['POST', '/projects', { name: 'p', metadata: { a: 'b' } }, 'metadata', false],
  ['POST', '/projects', { name: 'p' }, 'name', true],
  ['POST', '/projects/default/apiKeys', { note: 'n' }, 'note', false],
  ['PUT', '/organizations/memberships', { userId: 'u', role: 'MEMBER' }, 'userId', false],
  [
    'POST',
    '/scim/Users',
    { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'a@example.com', name: { formatted: 'A' } },
    'userName',
    true,
  ],
];

/** Paths with an id; `{name}` is replaced by the poisoned id, percent-encoded as a client would, and named in the answer. */
const ID_PATHS: [string, string][] = [
  ['GET', '/traces/{traceId}'],
  ['DELETE', '/traces/{traceId}'],
  ['GET', '/observations/{observationId}'],
  ['GET', '/sessions/{sessionId}'],
  ['GET', '/scores/{id}'],
  ['GET', '/v2/scores/{id}'],
  ['DELETE', '/scores/{id}'],
  ['GET', '/v2/prompts/{name}'],
  ['DELETE', '/v2/prompts/{name}'],
  ['PATCH', '/v2/prompts/{name}/versions/1'],
  ['GET', '/score-configs/{configId}'],
  ['PATCH', '/score-configs/{configId}'],
  ['GET', '/v2/datasets/{datasetName}'],
  ['GET', '/datasets/{datasetName}'],
  ['GET', '/datasets/{datasetName}/runs'],
  ['GET', '/datasets/ds/runs/{runName}'],
  ['DELETE', '/datasets/ds/runs/{runName}'],
  ['GET', '/dataset-items/{id}'],
  ['DELETE', '/dataset-items/{id}'],
  ['GET', '/models/{id}'],
  ['DELETE', '/models/{id}'],
  ['DELETE', '/llm-connections/{id}'],
  ['GET', '/annotation-queues/{queueId}'],
  ['GET', '/annotation-queues/{queueId}/items'],
  ['POST', '/annotation-queues/{queueId}/items'],
  ['POST', '/annotation-queues/{queueId}/assignments'],
  ['GET', '/annotation-queues/queue/items/{itemId}'],
  ['PATCH', '/annotation-queues/queue/items/{itemId}'],
  ['DELETE', '/annotation-queues/queue/items/{itemId}'],
];
/** Bodies that pass validation, for the writes among ID_PATHS (the id is checked first). */
const ID_PATH_BODIES: Record<string, unknown> = {
  'PATCH /v2/prompts/{name}/versions/1': { newLabels: ['x'] },
  'PATCH /score-configs/{configId}': { description: 'x' },
  'POST /annotation-queues/{queueId}/items': { objectId: 'tr', objectType: 'TRACE' },
  'POST /annotation-queues/{queueId}/assignments': { userId: 'u' },
  'PATCH /annotation-queues/queue/items/{itemId}': { status: 'COMPLETED' },
};

/**
 * A lone surrogate cannot be UTF-8: a client that sends one puts its WTF-8 bytes in the URL, which does not decode, so
 * the answer names the path rather than the parameter.
 */
const pathVariants: [string, string, string?][] = [
  ['U+0000', '%00'],
  ['a lone surrogate', '%ED%A0%80', 'The request path cannot be decoded'],
  ['an over-long id', 'x'.repeat(MAX_INDEXED_BYTES + 1)],
];

for (const backend of STORE_BACKENDS) {
  t.test(`unstorable input on ${backend}`, async (t) => {
    const { s, db, key, orgKey } = await startPublicApiService(t, backend);
    const k = auth(key);
    const count = async (table: string) =>
      Number((await db.query<{ n: unknown }>(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
    // What the writes refer to, so that each would succeed with its valid body.
    await send(s, 'POST', '/v2/datasets', k, { name: 'ds' });
    await send(s, 'POST', '/dataset-items', k, { datasetName: 'ds', id: 'item', input: 'x' });
    await send(s, 'POST', '/dataset-run-items', k, { runName: 'run', datasetItemId: 'item', traceId: 'tr' });
    const config = await send(s, 'POST', '/score-configs', k, { name: 'cfg', dataType: 'NUMERIC' });
    const queue = await send(s, 'POST', '/annotation-queues', k, { name: 'queue', scoreConfigIds: [] });
    const fix = (path: string) => path.replace('/cfg', `/${config.body.id}`).replace('/queue/', `/${queue.body.id}/`);

    const poisonings = (valid: Record<string, unknown>, field: string, indexed: boolean): [string, unknown][] => {
      const wrap = (v: string) => (Array.isArray(valid[field]) ? [v] : v);
      return [
        ['U+0000', wrap(NUL)],
        ['a lone surrogate', wrap(LONE)],
        ...(indexed ? [['an over-long string', wrap(LONG)] as [string, unknown]] : []),
      ];
    };

    t.test('project writes', async (t) => {
      const before = await Promise.all(
        [
          'prompts',
          'datasets',
          'dataset_items',
          'dataset_runs',
          'models',
          'llm_connections',
          'score_configs',
          'annotation_queues',
          'scores',
          'gateway_keys',
        ].map(count),
      );
      for (const [method, path, valid, field, indexed] of PROJECT_WRITES) {
        for (const [what, value] of poisonings(valid, field, indexed)) {
          refused(
            t,
            await send(s, method, fix(path), k, { ...valid, [field]: value }),
            field,
            `${method} ${path} ${field} with ${what}`,
          );
        }
      }
      refused(
        t,
        await send(s, 'POST', '/v2/datasets', k, { name: 'd', metadata: { [`k${NUL}`]: 1 } }),
        'metadata',
        'a NUL in a metadata key',
      );
      t.same(
        (await send(s, 'POST', '/v2/prompts', k, { name: NUL, prompt: 'x' })).body,
        {
          message: 'Field name contains U+0000 or an unpaired surrogate, which cannot be stored',
          error: 'InvalidRequestError',
          details: { field: 'name', location: 'body' },
        },
        'the envelope key minting answers in too',
      );
      t.same((await send(s, 'GET', `/traces/${'x'.repeat(MAX_INDEXED_BYTES + 1)}`, k)).body.details, {
        field: 'traceId',
        location: 'path',
      });
      const batch = await send(s, 'POST', '/scores', k, [
        { traceId: 'tr', name: 'ok', value: 1 },
        { traceId: 'tr', name: NUL, value: 1 },
        { traceId: LONG, name: 'x', value: 1 },
      ]);
      t.equal(batch.status, 207, 'a score batch stores the valid scores');
      t.match(batch.body, {
        accepted: 1,
        rejected: 2,
        errors: [{ message: /^scores\[1\]: name: / }, { message: /^scores\[2\]: traceId: / }],
      });
      const after = await Promise.all(
        [
          'prompts',
          'datasets',
          'dataset_items',
          'dataset_runs',
          'models',
          'llm_connections',
          'score_configs',
          'annotation_queues',
          'scores',
          'gateway_keys',
        ].map(count),
      );
      t.same(
        after,
        [
          before[0],
          before[1],
          before[2],
          before[3],
          before[4],
          before[5],
          before[6],
          before[7],
          before[8] + 1,
          before[9],
        ],
        'nothing stored but the valid score of the batch',
      );
    });

    t.test('organization writes', async (t) => {
      const o = auth(orgKey);
      for (const [method, path, valid, field, indexed] of ORGANIZATION_WRITES) {
        for (const [what, value] of poisonings(valid, field, indexed)) {
          refused(
            t,
            await send(s, method, path, o, { ...valid, [field]: value }),
            field,
            `${method} ${path} ${field} with ${what}`,
          );
        }
      }
    });

    t.test('ids in paths', async (t) => {
      for (const [method, path] of ID_PATHS) {
        const param = /\{(\w+)\}/.exec(path)![1];
        for (const [what, id, named = param] of pathVariants) {
          refused(
            t,
            await send(s, method, fix(path).replace(`{${param}}`, id), k, ID_PATH_BODIES[`${method} ${path}`]),
            named,
            `${method} ${path} with ${what}`,
          );
        }
      }
      for (const [what, id, named] of pathVariants) {
        refused(
          t,
          await send(s, 'GET', `/projects/${id}/apiKeys`, auth(orgKey)),
          named ?? 'projectId',
          `GET /projects/{projectId}/apiKeys with ${what}`,
        );
        refused(
          t,
          await send(s, 'GET', `/scim/Users/${id}`, auth(orgKey)),
          named ?? 'id',
          `GET /scim/Users/{id} with ${what}`,
        );
      }
    });

    t.test('query parameters', async (t) => {
      for (const path of [
        '/traces?userId=%00',
        '/observations?name=%00',
        '/scores?name=%00',
        '/v2/prompts?name=%00',
        '/dataset-items?datasetName=%00',
        '/sessions?environment=%00',
      ]) {
        refused(t, await send(s, 'GET', path, k), path.split('?')[1].split('=')[0], `GET ${path}`);
      }
    });
  });
}
