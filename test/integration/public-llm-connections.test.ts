// LLM connections (docs/public-api.md "Models and cost, LLM connections, annotation queues"): PUT upserts by provider
// (201 then 200), GET pages, DELETE; adapter rules; the secret and extra header values never answered and stored
// sealed, not as plaintext. Key kinds. Both backends.
import t from 'tap';
import { ACCESS_MESSAGES } from '../../admin/public-api/route-access.ts';
import { connectionSecretsBox } from '../../src/platform/secrets/connection-secrets-key.ts';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { basicAuth as auth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';
import { baseConfig, startTestService, type TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const call = (s: TestService, method: string, path: string, authorization: string, body?: unknown) =>
  callAdmin(s, method, `/api/public${path}`, authorization, body);

const SECRET = 'sk-upstream-0123456789-SECRETVALUE-wxyz';
const HEADER_VALUE = 'header-secret-9876';

for (const backend of STORE_BACKENDS) {
  t.test(`llm connections on ${backend}`, async (t) => {
    const { s, db, key, ingestKey, orgKey } = await startPublicApiService(t, backend);
    const k = auth(key);
    const responses: unknown[] = [];
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await call(s, method, path, k, body);
      responses.push(r.body);
      return r;
    };

    t.test('key kinds: organization key 401, ingestion-only project 403', async (t) => {
      for (const [method, path] of [
        ['GET', '/llm-connections'],
        ['PUT', '/llm-connections'],
        ['DELETE', '/llm-connections/x'],
      ]) {
        const body = method === 'PUT' ? {} : undefined;
        t.same(await call(s, method, path, auth(orgKey), body), {
          status: 401,
          body: { message: ACCESS_MESSAGES.organizationKey, error: 'UnauthorizedError' },
        });
        t.equal((await call(s, method, path, auth(ingestKey), body)).status, 403);
      }
    });

    let openaiId = '';
    t.test("PUT creates (201) then replaces (200) the provider's connection", async (t) => {
      const created = await api('PUT', '/llm-connections', {
        provider: 'openai',
        adapter: 'openai',
        secretKey: SECRET,
        baseURL: 'https://api.example.com/v1',
        customModels: ['my-ft'],
        withDefaultModels: false,
        extraHeaders: { 'x-team': HEADER_VALUE },
      });
      t.equal(created.status, 201);
      t.match(created.body, {
        provider: 'openai',
        adapter: 'openai',
        displaySecretKey: '...wxyz',
        baseURL: 'https://api.example.com/v1',
        customModels: ['my-ft'],
        withDefaultModels: false,
        extraHeaderKeys: ['x-team'],
        config: null,
      });
      t.same(Object.keys(created.body).sort(), [
        'adapter',
        'baseURL',
        'config',
        'createdAt',
        'customModels',
        'displaySecretKey',
        'extraHeaderKeys',
        'id',
        'provider',
        'updatedAt',
        'withDefaultModels',
      ]);
      openaiId = created.body.id;

      const replaced = await api('PUT', '/llm-connections', {
        provider: 'openai',
        adapter: 'azure',
        secretKey: 'other-secret-abcd',
      });
      t.equal(replaced.status, 200);
      t.match(
        replaced.body,
        {
          id: openaiId,
          adapter: 'azure',
          displaySecretKey: '...abcd',
          baseURL: null,
          customModels: [],
          withDefaultModels: true,
          extraHeaderKeys: [],
        },
        'a PUT replaces: absent fields take their defaults, the id stays',
      );

      const bedrock = await api('PUT', '/llm-connections', {
        provider: 'aws',
        adapter: 'bedrock',
        config: { region: 'eu-west-1' },
        secretKey: JSON.stringify({ accessKeyId: 'AKIA1234', secretAccessKey: 'aws-secret-value' }),
      });
      t.equal(bedrock.status, 201);
      t.match(bedrock.body, { adapter: 'bedrock', config: { region: 'eu-west-1' } });
    });

    t.test('adapter and body rules', async (t) => {
      const refusals: [Record<string, unknown>, RegExp][] = [
        [
          { provider: 'b', adapter: 'bedrock', secretKey: JSON.stringify({ accessKeyId: 'a', secretAccessKey: 'b' }) },
          /config.*region.*required/,
        ],
        [
          { provider: 'b', adapter: 'bedrock', secretKey: 'plain', config: { region: 'us-east-1' } },
          /JSON credentials/,
        ],
        [{ provider: 'v', adapter: 'google-vertex-ai', secretKey: 'not json' }, /service account key/],
        [
          { provider: 'o', adapter: 'openai', secretKey: 'x', config: { region: 'x' } },
          /only for the bedrock and google-vertex-ai/,
        ],
        [{ provider: 'o', adapter: 'cohere', secretKey: 'x' }, /adapter/],
        [{ provider: 'o', adapter: 'openai' }, /secretKey/],
        [{ provider: 'o', adapter: 'openai', secretKey: 'x', baseURL: 'ftp://x' }, /baseURL/],
      ];
      for (const [body, message] of refusals) {
        const r = await api('PUT', '/llm-connections', body);
        t.equal(r.status, 400, JSON.stringify(body));
        t.match(JSON.stringify(r.body), message);
      }
    });

    t.test('GET pages the connections, oldest first', async (t) => {
      const all = await api('GET', '/llm-connections');
      t.same(
        all.body.data.map((c: any) => c.provider),
        ['openai', 'aws'],
      );
      t.same(all.body.meta, { page: 1, limit: 50, totalItems: 2, totalPages: 1 });
      const second = await api('GET', '/llm-connections?page=2&limit=1');
      t.same(
        second.body.data.map((c: any) => c.provider),
        ['aws'],
      );
      t.equal((await api('GET', '/llm-connections?limit=101')).status, 400);
    });

    t.test("secrets are stored sealed, never as plaintext, and open with the store's key", async (t) => {
      await api('PUT', '/llm-connections', {
        provider: 'openai',
        adapter: 'openai',
        secretKey: SECRET,
        extraHeaders: { 'x-team': HEADER_VALUE },
      });
      const rows = (await db.query<Record<string, unknown>>("SELECT * FROM llm_connections WHERE provider = 'openai'"))
        .rows;
      const stored = JSON.stringify(rows);
      t.notOk(stored.includes(SECRET) || stored.includes(HEADER_VALUE), 'no plaintext in the row');
      const box = await connectionSecretsBox(db, '');
      t.equal(box.open(String(rows[0].secret_key_encrypted)), SECRET);
      t.same(JSON.parse(box.open(String(rows[0].extra_headers_encrypted))), { 'x-team': HEADER_VALUE });
      const configured = await connectionSecretsBox(db, 'a-configured-key-of-at-least-32-characters');
      t.throws(() => configured.open(String(rows[0].secret_key_encrypted)), 'another key cannot open it');
      t.equal(configured.open(configured.seal('round trip')), 'round trip');
    });

    t.test('DELETE removes the connection; unknown ids are 404', async (t) => {
      t.same((await api('DELETE', `/llm-connections/${openaiId}`)).body, {
        message: 'LLM connection successfully deleted',
      });
      t.equal((await api('DELETE', `/llm-connections/${openaiId}`)).status, 404);
      t.same(
        (await api('GET', '/llm-connections')).body.data.map((c: any) => c.provider),
        ['aws'],
      );
    });

    t.test('a secret shorter than 12 characters shows none of them', async (t) => {
      for (const [secretKey, shown] of [
        ['a', '...'],
        ['abc', '...'],
        ['short-sec11', '...'],
        ['twelve-chars', '...hars'],
      ]) {
        const r = await api('PUT', '/llm-connections', { provider: 'short', adapter: 'openai', secretKey });
        t.equal(r.body.displaySecretKey, shown, `${secretKey.length} characters`);
        t.equal(
          (await api('GET', '/llm-connections')).body.data.find((c: any) => c.provider === 'short').displaySecretKey,
          shown,
        );
        await api('DELETE', `/llm-connections/${r.body.id}`);
      }
    });

    t.test('no response ever carried a secret', async (t) => {
      const all = JSON.stringify(responses);
      for (const secret of [
        SECRET,
        HEADER_VALUE,
        'aws-secret-value',
        'other-secret-abcd',
        'short-sec11',
        'twelve-chars',
      ])
        t.notOk(all.includes(secret), secret);
    });
  });
}

t.test(
  'with store.encryption_key set (here from the environment), secrets are sealed with it and no key is generated',
  async (t) => {
    const configured = 'a-configured-encryption-key-0123456789abcdef';
    const s = await startTestService(t, baseConfig({ store: { encryption_key: '${SVC_ENCRYPTION_KEY}' } }), {
      env: { SVC_ENCRYPTION_KEY: configured },
    });
    const db = s.service.db;
    const key = await createApiKey(db, {
      kind: 'project',
      organizationId: 'default',
      projectId: 'default',
      now: Date.now(),
    });
    t.equal(
      (
        await call(s, 'PUT', '/llm-connections', auth(key), {
          provider: 'anthropic',
          adapter: 'anthropic',
          secretKey: SECRET,
        })
      ).status,
      201,
    );
    const row = (await db.query<{ secret_key_encrypted: string }>('SELECT secret_key_encrypted FROM llm_connections'))
      .rows[0];
    t.equal((await connectionSecretsBox(db, configured)).open(row.secret_key_encrypted), SECRET);
    t.same((await db.query('SELECT name FROM installation_secrets')).rows, []);
  },
);
