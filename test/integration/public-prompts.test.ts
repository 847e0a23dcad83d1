// Prompts v2 of the public API (docs/public-api.md "Prompts — /api/public/v2/prompts", docs/webhooks.md): every route
// valid and invalid, labels unique per name, `latest` kept by the server, folder names, key kinds, ingestion-only
// projects, and the prompt-version events recorded in the changing transaction. Runs against both store backends.
import t, { type Test } from 'tap';
import { createApiKey, type CreatedApiKey } from '../../src/platform/store/repos/api-keys.ts';
import type { Queryable } from '../../src/platform/store/database.ts';
import type { PromptVersionEvent, PromptVersionEvents } from '../../src/platform/store/repos/prompt-version-events.ts';
import { basicAuth, callAdmin } from '../helpers/public-api.ts';
import { baseConfig, startTestService, type TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

interface Answer {
  status: number;
  body: any;
}

/** Keeps what was recorded; `fail` makes the next record throw (the change must roll back with it). */
class RecordingEvents implements PromptVersionEvents {
  events: PromptVersionEvent[] = [];
  fail = false;

  async record(tx: Queryable, events: readonly PromptVersionEvent[]): Promise<void> {
    await tx.query('SELECT 1');
    if (this.fail) {
      this.fail = false;
      throw new Error('outbox unavailable');
    }
    this.events.push(...events);
  }

  take(): { action: string; name: string; version: number; labels: string[] }[] {
    const out = this.events.map((e) => ({
      action: e.action,
      name: e.prompt.name,
      version: e.prompt.version,
      labels: e.prompt.labels,
    }));
    this.events = [];
    return out;
  }
}

/** A public API call with a key's Basic auth (none: an empty Authorization header, which is no key). */
const caller =
  (s: TestService) =>
  (method: string, path: string, key: CreatedApiKey | undefined, body?: unknown): Promise<Answer> =>
    callAdmin(s, method, `/api/public${path}`, key ? basicAuth(key) : '', body);

function invalidData(t: Test, r: Answer, field: string) {
  t.equal(r.status, 400, `400 for ${field}`);
  t.equal(r.body?.message, 'Invalid request data');
  t.ok(
    Array.isArray(r.body?.error) && r.body.error.some((i: any) => i.path.includes(field)),
    `an issue names ${field}: ${JSON.stringify(r.body)}`,
  );
}

for (const backend of STORE_BACKENDS) {
  t.test(`prompts on ${backend}`, async (t) => {
    const recorder = new RecordingEvents();
    const s = await startTestService(
      t,
      baseConfig({
        projects: [
          { id: 'default', name: 'Default' },
          { id: 'other', name: 'Other' },
          { id: 'ingest', ingestion_only: true },
        ],
      }),
      { backend, promptEvents: recorder },
    );
    const db = s.service.db;
    const now = Date.now();
    const key = await createApiKey(db, { kind: 'project', organizationId: 'default', projectId: 'default', now });
    const otherKey = await createApiKey(db, { kind: 'project', organizationId: 'default', projectId: 'other', now });
    const ingestKey = await createApiKey(db, { kind: 'project', organizationId: 'default', projectId: 'ingest', now });
    const orgKey = await createApiKey(db, { kind: 'organization', organizationId: 'default', now });
    const expiredKey = await createApiKey(db, {
      kind: 'project',
      organizationId: 'default',
      projectId: 'default',
      now: now - 200 * 24 * 3600 * 1000,
    });
    const call = caller(s);

    t.test('create versions: numbering, labels move, latest follows the newest', async (t) => {
      const v1 = await call('POST', '/v2/prompts', key, {
        name: 'greet',
        prompt: 'Hello {{who}}',
        labels: ['production'],
        tags: ['a'],
        commitMessage: 'first',
        config: { temperature: 0.2 },
      });
      t.equal(v1.status, 201);
      t.match(v1.body, {
        id: String,
        projectId: 'default',
        createdBy: 'API',
        name: 'greet',
        version: 1,
        type: 'text',
        prompt: 'Hello {{who}}',
        config: { temperature: 0.2 },
        labels: ['production', 'latest'],
        tags: ['a'],
        commitMessage: 'first',
        createdAt: String,
        updatedAt: String,
      });
      t.same(recorder.take(), [{ action: 'created', name: 'greet', version: 1, labels: ['production', 'latest'] }]);

      // tags, config and commitMessage null, as the Langfuse Python SDK sends what it was not given: as omitted.
      const v2 = await call('POST', '/v2/prompts', key, {
        name: 'greet',
        type: 'text',
        prompt: 'Hi {{who}}',
        labels: ['staging', 'latest'],
        tags: null,
        config: null,
        commitMessage: null,
      });
      t.equal(v2.status, 201);
      t.same(
        [v2.body.version, v2.body.labels, v2.body.tags, v2.body.config, v2.body.commitMessage],
        [2, ['staging', 'latest'], ['a'], {}, null],
        'tags inherited, latest once',
      );
      t.same(
        recorder.take(),
        [
          { action: 'created', name: 'greet', version: 2, labels: ['staging', 'latest'] },
          { action: 'updated', name: 'greet', version: 1, labels: ['production'] },
        ],
        'the version that lost latest is updated',
      );

      const v3 = await call('POST', '/v2/prompts', key, {
        name: 'greet',
        prompt: 'Yo',
        labels: ['staging'],
        tags: ['b'],
      });
      t.same([v3.body.version, v3.body.labels, v3.body.tags], [3, ['staging', 'latest'], ['b']]);
      t.same(
        recorder.take(),
        [
          { action: 'created', name: 'greet', version: 3, labels: ['staging', 'latest'] },
          { action: 'updated', name: 'greet', version: 1, labels: ['production'] },
          { action: 'updated', name: 'greet', version: 2, labels: [] },
        ],
        'staging moved away from v2; given tags apply to every version',
      );
      t.same((await call('GET', '/v2/prompts/greet?version=1', key)).body.tags, ['b']);

      const typeChange = await call('POST', '/v2/prompts', key, {
        name: 'greet',
        type: 'chat',
        prompt: [{ role: 'user', content: 'x' }],
      });
      t.equal(typeChange.status, 400);
      t.match(typeChange.body, { error: 'InvalidRequestError', message: /different prompt type/ });
      t.same(recorder.take(), []);
    });

    t.test('get by label, version, default production', async (t) => {
      const prod = await call('GET', '/v2/prompts/greet', key);
      t.equal(prod.status, 200);
      t.match(prod.body, { version: 1, labels: ['production'], isActive: true });
      t.match((await call('GET', '/v2/prompts/greet?label=latest', key)).body, { version: 3, isActive: false });
      t.match((await call('GET', '/v2/prompts/greet?version=2', key)).body, { version: 2, prompt: 'Hi {{who}}' });
      t.match(await call('GET', '/v2/prompts/greet?label=nope', key), {
        status: 404,
        body: { error: 'NotFoundError', message: "Prompt not found: 'greet' with label 'nope'" },
      });
      t.match(await call('GET', '/v2/prompts/greet?version=9', key), {
        status: 404,
        body: { message: "Prompt not found: 'greet' with version 9" },
      });
      t.match(await call('GET', '/v2/prompts/missing', key), {
        status: 404,
        body: { message: "Prompt not found: 'missing' with label 'production'" },
      });
      t.match(await call('GET', '/v2/prompts/greet?version=1&label=production', key), {
        status: 400,
        body: { message: 'Cannot specify both version and label' },
      });
      invalidData(t, await call('GET', '/v2/prompts/greet?version=abc', key), 'version');
      invalidData(t, await call('GET', '/v2/prompts/greet?version=0', key), 'version');
      t.match(
        await call('GET', '/v2/prompts/greet?foo=1', key),
        { status: 200, body: { version: 1 } },
        'an unknown parameter is ignored, as Langfuse does',
      );
      t.match(
        await call('GET', '/v2/prompts/greet?resolve=false', key),
        { status: 200, body: { version: 1, resolutionGraph: null } },
        'resolve=false: as stored',
      );
      t.equal((await call('GET', '/v2/prompts/greet', otherKey)).status, 404, 'another project sees nothing');
    });

    t.test('PATCH adds labels and moves them away from other versions', async (t) => {
      const r = await call('PATCH', '/v2/prompts/greet/versions/2', key, { newLabels: ['production', 'beta'] });
      t.equal(r.status, 200);
      t.match(r.body, { name: 'greet', version: 2, labels: ['production', 'beta'] });
      t.same(
        recorder.take(),
        [
          { action: 'updated', name: 'greet', version: 2, labels: ['production', 'beta'] },
          { action: 'updated', name: 'greet', version: 1, labels: [] },
        ],
        'updated for the version production was moved away from',
      );
      t.match((await call('GET', '/v2/prompts/greet', key)).body, { version: 2 });
      const again = await call('PATCH', '/v2/prompts/greet/versions/3', key, {
        newLabels: ['beta'],
        name: 'greet',
        version: 3,
      });
      t.same(again.body.labels, ['staging', 'latest', 'beta'], 'additive: existing labels stay');
      t.same(
        recorder.take().map((e) => [e.action, e.version, e.labels]),
        [
          ['updated', 3, ['staging', 'latest', 'beta']],
          ['updated', 2, ['production']],
        ],
      );

      t.match(await call('PATCH', '/v2/prompts/greet/versions/1', key, { newLabels: ['latest'] }), {
        status: 400,
        body: { error: 'InvalidRequestError', message: /managed by the server/ },
      });
      t.match(await call('PATCH', '/v2/prompts/greet/versions/9', key, { newLabels: ['x'] }), {
        status: 404,
        body: { message: "Prompt not found: 'greet' with version 9" },
      });
      t.equal((await call('PATCH', '/v2/prompts/nope/versions/1', key, { newLabels: ['x'] })).status, 404);
      invalidData(t, await call('PATCH', '/v2/prompts/greet/versions/1', key, { newLabels: ['Not OK'] }), 'newLabels');
      invalidData(t, await call('PATCH', '/v2/prompts/greet/versions/1', key, {}), 'newLabels');
      invalidData(t, await call('PATCH', '/v2/prompts/greet/versions/x', key, { newLabels: [] }), 'version');
      t.same(recorder.take(), [], 'refusals record nothing');
    });

    t.test('create validation', async (t) => {
      const base = { name: 'v', prompt: 'x' };
      invalidData(t, await call('POST', '/v2/prompts', key, { prompt: 'x' }), 'name');
      invalidData(t, await call('POST', '/v2/prompts', key, { name: 'v' }), 'prompt');
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, name: '' }), 'name');
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, name: 'a|b' }), 'name');
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, name: '/a' }), 'name');
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, name: 'a//b' }), 'name');
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, name: 'a/' }), 'name');
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, name: 'x'.repeat(256) }), 'name');
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, type: 'image' }), 'type');
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, type: 'chat' }), 'prompt');
      invalidData(
        t,
        await call('POST', '/v2/prompts', key, { ...base, prompt: [{ role: 'user', content: 'x' }] }),
        'prompt',
      );
      invalidData(
        t,
        await call('POST', '/v2/prompts', key, { ...base, type: 'chat', prompt: [{ role: 'user' }] }),
        'prompt',
      );
      invalidData(
        t,
        await call('POST', '/v2/prompts', key, {
          ...base,
          type: 'chat',
          prompt: [
            { role: 'user', content: 'Hi {{ name }}' },
            { type: 'placeholder', name: 'name' },
          ],
        }),
        'prompt',
      );
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, labels: ['UPPER'] }), 'labels');
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, labels: ['x'.repeat(37)] }), 'labels');
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, tags: 'a' }), 'tags');
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, config: [] }), 'config');
      invalidData(
        t,
        await call('POST', '/v2/prompts', key, { ...base, commitMessage: 'x'.repeat(501) }),
        'commitMessage',
      );
      invalidData(t, await call('POST', '/v2/prompts', key, { ...base, extra: 1, commitMessage: 5 }), 'commitMessage');
      t.equal(
        (
          await call('POST', '/v2/prompts', key, {
            ...base,
            labels: ['x'.repeat(36)],
            commitMessage: 'x'.repeat(500),
            isActive: true,
          })
        ).status,
        201,
        'at the bounds',
      );
      const res = await fetch(`${s.adminUrl}/api/public/v2/prompts`, {
        method: 'POST',
        headers: { authorization: basicAuth(key), 'content-type': 'application/json' },
        body: '{"name":',
      });
      t.equal(res.status, 400, 'malformed JSON');
      const text = await fetch(`${s.adminUrl}/api/public/v2/prompts`, {
        method: 'POST',
        headers: { authorization: basicAuth(key), 'content-type': 'application/xml' },
        body: '<x/>',
      });
      t.equal(text.status, 415);
      recorder.take();
    });

    t.test('chat prompts and their event payload', async (t) => {
      const messages = [
        { role: 'system', content: 'You are {{persona}}' },
        { type: 'placeholder', name: 'history' },
        { type: 'chatmessage', role: 'user', content: '{{q}}' },
      ];
      const r = await call('POST', '/v2/prompts', key, {
        name: 'chatty',
        type: 'chat',
        prompt: messages,
        labels: ['production'],
      });
      t.equal(r.status, 201);
      t.same(r.body.prompt, messages);
      t.same((await call('GET', '/v2/prompts/chatty', key)).body.prompt, messages);
      const [created] = recorder.events.splice(0);
      t.equal(created.action, 'created');
      t.equal(created.prompt.type, 'chat');
      t.equal(typeof created.prompt.prompt, 'string', 'a chat prompt travels as JSON text');
      t.same(JSON.parse(created.prompt.prompt), messages);
      t.match(created.prompt, {
        id: r.body.id,
        projectId: 'default',
        version: 1,
        labels: ['production', 'latest'],
        config: {},
        commitMessage: null,
        tags: [],
        createdAt: r.body.createdAt,
        updatedAt: r.body.updatedAt,
      });
    });

    t.test('folder names travel as one encoded segment', async (t) => {
      const name = 'team/support/welcome';
      const enc = encodeURIComponent(name);
      t.equal((await call('POST', '/v2/prompts', key, { name, prompt: 'one', labels: ['production'] })).status, 201);
      t.equal((await call('POST', '/v2/prompts', key, { name, prompt: 'two' })).status, 201);
      t.match(await call('GET', `/v2/prompts/${enc}`, key), { status: 200, body: { name, version: 1 } });
      t.match(
        await call('GET', `/v2/prompts/team%2fsupport%2fwelcome?label=latest`, key),
        { status: 200, body: { name, version: 2 } },
        'lower-case escapes',
      );
      t.match(await call('PATCH', `/v2/prompts/${enc}/versions/2`, key, { newLabels: ['production'] }), {
        status: 200,
        body: { name, labels: ['latest', 'production'] },
      });
      t.match(
        await call('GET', `/v2/prompts/${name}`, key),
        { status: 404, body: { error: 'NotFoundError' } },
        'an unencoded slash is another path',
      );
      t.match((await call('GET', `/v2/prompts?name=${enc}`, key)).body.data, [{ name, versions: [1, 2] }]);
      // Router parameters have a length limit; the longest names, encoded, must still fit in one.
      for (const long of [`${'folder/'.repeat(36)}abc`, `ünïcødé/${'✓'.repeat(200)}`, 'x'.repeat(255)]) {
        t.equal(
          (await call('POST', '/v2/prompts', key, { name: long, prompt: 'long', labels: ['production'] })).status,
          201,
          `create ${long.length} chars`,
        );
        t.match(
          await call('GET', `/v2/prompts/${encodeURIComponent(long)}`, key),
          { status: 200, body: { name: long } },
          `get ${encodeURIComponent(long).length} encoded chars`,
        );
        t.equal(
          (await call('PATCH', `/v2/prompts/${encodeURIComponent(long)}/versions/1`, key, { newLabels: ['x'] })).status,
          200,
        );
        t.equal((await call('DELETE', `/v2/prompts/${encodeURIComponent(long)}`, key)).status, 204);
      }
      t.equal((await call('DELETE', `/v2/prompts/${enc}?version=1`, key)).status, 204);
      t.match(await call('GET', `/v2/prompts/${enc}?version=2`, key), { status: 200, body: { name } });
      recorder.take();
    });

    t.test('list: paging, filters, Langfuse shape', async (t) => {
      const r = await call('GET', '/v2/prompts', key);
      t.equal(r.status, 200);
      t.same(r.body.meta, { page: 1, limit: 10, totalItems: 4, totalPages: 1 });
      t.same(r.body.pagination, r.body.meta);
      t.same(
        r.body.data.map((p: any) => p.name),
        ['chatty', 'greet', 'team/support/welcome', 'v'],
        'by name',
      );
      const greet = r.body.data[1];
      t.match(greet, {
        name: 'greet',
        type: 'text',
        versions: [1, 2, 3],
        tags: ['b'],
        lastUpdatedAt: String,
        lastConfig: {},
      });
      t.same([...greet.labels].sort(), ['beta', 'latest', 'production', 'staging']);
      const page2 = await call('GET', '/v2/prompts?limit=3&page=2', key);
      t.same(page2.body.meta, { page: 2, limit: 3, totalItems: 4, totalPages: 2 });
      t.same(
        page2.body.data.map((p: any) => p.name),
        ['v'],
      );
      const byLabel = await call('GET', '/v2/prompts?label=production', key);
      t.same(
        byLabel.body.data.map((p: any) => [p.name, p.versions]),
        [
          ['chatty', [1]],
          ['greet', [2]],
          ['team/support/welcome', [2]],
        ],
        'versions that match only',
      );
      t.same(
        (await call('GET', '/v2/prompts?tag=b', key)).body.data.map((p: any) => p.name),
        ['greet'],
      );
      t.same(
        (await call('GET', '/v2/prompts?name=greet&label=staging', key)).body.data.map((p: any) => p.versions),
        [[3]],
      );
      const future = new Date(Date.now() + 60_000).toISOString();
      t.same((await call('GET', `/v2/prompts?fromUpdatedAt=${future}`, key)).body, {
        data: [],
        meta: { page: 1, limit: 10, totalItems: 0, totalPages: 0 },
        pagination: { page: 1, limit: 10, totalItems: 0, totalPages: 0 },
      });
      t.equal((await call('GET', `/v2/prompts?toUpdatedAt=${future}`, key)).body.meta.totalItems, 4);
      t.equal((await call('GET', '/v2/prompts', otherKey)).body.meta.totalItems, 0, 'per project');
      invalidData(t, await call('GET', '/v2/prompts?limit=101', key), 'limit');
      invalidData(t, await call('GET', '/v2/prompts?page=0', key), 'page');
      invalidData(t, await call('GET', '/v2/prompts?fromUpdatedAt=yesterday', key), 'fromUpdatedAt');
      t.equal((await call('GET', '/v2/prompts?limit=100', key)).status, 200);
    });

    t.test('delete by version, label, or all; latest moves back', async (t) => {
      for (const prompt of ['a', 'b', 'c']) await call('POST', '/v2/prompts', key, { name: 'del', prompt });
      await call('PATCH', '/v2/prompts/del/versions/1', key, { newLabels: ['production'] });
      recorder.take();
      t.match(await call('DELETE', '/v2/prompts/del?version=1&label=production', key), {
        status: 400,
        body: { message: 'Cannot specify both version and label' },
      });
      t.match(await call('DELETE', '/v2/prompts/del?version=7', key), {
        status: 404,
        body: { error: 'NotFoundError', message: "Prompt not found: 'del' with version 7" },
      });
      const gone = await call('DELETE', '/v2/prompts/del?version=3', key);
      t.equal(gone.status, 204);
      t.equal(gone.body, undefined, 'empty body');
      t.same(
        recorder.take(),
        [
          { action: 'deleted', name: 'del', version: 3, labels: ['latest'] },
          { action: 'updated', name: 'del', version: 2, labels: ['latest'] },
        ],
        'latest moves to the newest version left',
      );
      t.equal((await call('DELETE', '/v2/prompts/del?label=production', key)).status, 204);
      t.same(recorder.take(), [{ action: 'deleted', name: 'del', version: 1, labels: ['production'] }]);
      t.equal(
        (await call('POST', '/v2/prompts', key, { name: 'del', prompt: 'd' })).body.version,
        3,
        'the next number follows the newest version left (Langfuse)',
      );
      recorder.take();
      t.equal((await call('DELETE', '/v2/prompts/del', key)).status, 204);
      t.same(
        recorder.take().map((e) => [e.action, e.version]),
        [
          ['deleted', 2],
          ['deleted', 3],
        ],
      );
      t.match(await call('DELETE', '/v2/prompts/del', key), {
        status: 404,
        body: { message: "Prompt not found: 'del'" },
      });
      t.equal((await call('GET', '/v2/prompts?name=del', key)).body.meta.totalItems, 0);
    });

    t.test('concurrent creates of one name take distinct versions, one latest', async (t) => {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call('POST', '/v2/prompts', key, { name: 'race', prompt: `p${i}`, labels: ['production'] }),
        ),
      );
      t.same(
        answers.map((a) => a.status),
        Array(8).fill(201),
      );
      t.same(
        answers.map((a) => a.body.version).sort((a, b) => a - b),
        [1, 2, 3, 4, 5, 6, 7, 8],
      );
      const rows = await db.query<{ version: number; labels: string[] }>(
        "SELECT version, labels FROM prompts WHERE project_id = 'default' AND name = 'race' ORDER BY version",
      );
      t.same(
        rows.rows.filter((r) => r.labels.includes('latest')).map((r) => Number(r.version)),
        [8],
      );
      t.same(
        rows.rows.filter((r) => r.labels.includes('production')).map((r) => Number(r.version)),
        [8],
      );
      recorder.take();
    });

    t.test('a change whose events cannot be recorded is rolled back', async (t) => {
      recorder.fail = true;
      const r = await call('POST', '/v2/prompts', key, { name: 'atomic', prompt: 'x' });
      t.equal(r.status, 500);
      t.equal(r.body.error, 'InternalServerError');
      t.equal((await call('GET', '/v2/prompts/atomic?label=latest', key)).status, 404);
      t.same(recorder.take(), []);
    });

    t.test('key kinds: organization key 403, ingestion-only read only, no key 401', async (t) => {
      const routes: [string, string, unknown?][] = [
        ['GET', '/v2/prompts'],
        ['GET', '/v2/prompts/greet'],
        ['POST', '/v2/prompts', { name: 'k', prompt: 'x' }],
        ['PATCH', '/v2/prompts/greet/versions/1', { newLabels: ['x'] }],
        ['DELETE', '/v2/prompts/greet'],
      ];
      for (const [method, path, body] of routes) {
        t.match(
          await call(method, path, orgKey, body),
          { status: 403, body: { error: 'ForbiddenError', message: /project API key, not an organization API key/ } },
          `${method} ${path} org key`,
        );
        t.match(
          await call(method, path, undefined, body),
          { status: 401, body: { error: 'UnauthorizedError' } },
          `${method} ${path} no key`,
        );
        t.match(
          await call(method, path, expiredKey, body),
          { status: 401, body: { message: 'API key has expired.' } },
          `${method} ${path} expired key`,
        );
        const bearer = await fetch(`${s.adminUrl}/api/public${path}`, {
          method,
          headers: { authorization: `Bearer ${key.publicKey}` },
        });
        t.match(
          { status: bearer.status, body: await bearer.json() },
          { status: 401, body: { message: /needs both the public key and the secret key/ } },
          `${method} ${path} public key alone`,
        );
        const ingest = await call(method, path, ingestKey, body);
        if (method === 'GET') t.not(ingest.status, 403, `${method} ${path} readable by an ingestion-only key`);
        else
          t.match(
            ingest,
            { status: 403, body: { error: 'ForbiddenError', message: /ingestion-only/ } },
            `${method} ${path} ingestion-only`,
          );
      }
      await db.query(
        "INSERT INTO prompts (id, project_id, name, version, type, prompt, labels, created_by) VALUES ('ing-1', 'ingest', 'fetched', 1, 'text', '\"hi\"', ARRAY['production'], 'test')",
      );
      t.match(await call('GET', '/v2/prompts/fetched', ingestKey), {
        status: 200,
        body: { name: 'fetched', prompt: 'hi' },
      });
      t.equal((await call('GET', '/v2/prompts', ingestKey)).body.meta.totalItems, 1);
      t.same(recorder.take(), []);
    });

    t.test('other methods on prompt paths are 405 with Allow', async (t) => {
      const res = await fetch(`${s.adminUrl}/api/public/v2/prompts/greet`, { method: 'PUT' });
      t.equal(res.status, 405);
      t.equal(res.headers.get('allow'), 'GET, DELETE');
      const versions = await fetch(`${s.adminUrl}/api/public/v2/prompts/a%2Fb/versions/1`, { method: 'GET' });
      t.equal(versions.status, 405);
      t.equal(versions.headers.get('allow'), 'PATCH');
    });
  });
}
