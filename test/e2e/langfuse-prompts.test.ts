// The official `langfuse` npm SDK v3 against the public API's prompts (docs/public-api.md
// "Prompts — /api/public/v2/prompts"; docs/langfuse-sdks.md): create and fetch text and chat prompts, labels, versions,
// folder names and label updates, compiled by the SDK, with the stored rows asserted.
import { Langfuse } from 'langfuse';
import t from 'tap';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';

const s = await startTestService(t, baseConfig());
const db = s.service.db;
const key = await createApiKey(db, {
  kind: 'project',
  organizationId: 'default',
  projectId: 'default',
  now: Date.now(),
});
const langfuse = new Langfuse({ publicKey: key.publicKey, secretKey: key.secretKey, baseUrl: s.adminUrl, flushAt: 1 });
t.teardown(() => langfuse.shutdownAsync());

async function storedRows(name: string) {
  const r = await db.query<Record<string, any>>(
    "SELECT version, type, prompt, config, labels, tags, commit_message, created_by FROM prompts WHERE project_id = 'default' AND name = $1 ORDER BY version",
    [name],
  );
  return r.rows.map((row): Record<string, any> => ({ ...row, version: Number(row.version) }));
}

t.test('text prompts: create, fetch by label and version, compile', async (t) => {
  const v1 = await langfuse.createPrompt({
    name: 'movie-critic',
    prompt: 'As a {{criticLevel}} critic, rate {{movie}}.',
    labels: ['production'],
    config: { model: 'demo', temperature: 0.5 },
    tags: ['movies'],
  });
  t.equal(v1.version, 1);
  t.same(v1.labels, ['production', 'latest']);
  const v2 = await langfuse.createPrompt({
    name: 'movie-critic',
    prompt: 'Rate {{movie}} like a {{criticLevel}} critic.',
    commitMessage: 'shorter',
  });
  t.equal(v2.version, 2);

  const production = await langfuse.getPrompt('movie-critic', undefined, { cacheTtlSeconds: 0 });
  t.equal(production.version, 1, 'production by default');
  t.equal(production.compile({ criticLevel: 'expert', movie: 'Dune 2' }), 'As a expert critic, rate Dune 2.');
  t.same(production.config, { model: 'demo', temperature: 0.5 });
  const latest = await langfuse.getPrompt('movie-critic', undefined, { label: 'latest', cacheTtlSeconds: 0 });
  t.equal(latest.version, 2);
  t.equal(latest.compile({ criticLevel: 'casual', movie: 'Up' }), 'Rate Up like a casual critic.');
  t.equal(
    (await langfuse.getPrompt('movie-critic', 1, { cacheTtlSeconds: 0 })).prompt,
    'As a {{criticLevel}} critic, rate {{movie}}.',
  );

  await langfuse.updatePrompt({ name: 'movie-critic', version: 2, newLabels: ['production'] });
  t.equal(
    (await langfuse.getPrompt('movie-critic', undefined, { cacheTtlSeconds: 0 })).version,
    2,
    'production moved by the SDK',
  );

  await t.rejects(
    langfuse.getPrompt('movie-critic', undefined, { label: 'nope', cacheTtlSeconds: 0, maxRetries: 0 }),
    'a missing label fails',
  );

  t.same(await storedRows('movie-critic'), [
    {
      version: 1,
      type: 'text',
      prompt: 'As a {{criticLevel}} critic, rate {{movie}}.',
      config: { model: 'demo', temperature: 0.5 },
      labels: [],
      tags: ['movies'],
      commit_message: null,
      created_by: 'API',
    },
    {
      version: 2,
      type: 'text',
      prompt: 'Rate {{movie}} like a {{criticLevel}} critic.',
      config: {},
      labels: ['latest', 'production'],
      tags: ['movies'],
      commit_message: 'shorter',
      created_by: 'API',
    },
  ]);
});

t.test('chat prompts with a placeholder, in a folder', async (t) => {
  const name = 'support/triage';
  const created = await langfuse.createPrompt({
    name,
    type: 'chat',
    prompt: [
      { role: 'system', content: 'You triage tickets for {{product}}.' },
      { type: 'placeholder', name: 'history' } as any,
      { role: 'user', content: '{{ticket}}' },
    ],
    labels: ['production'],
  });
  t.equal(created.type, 'chat');
  const fetched = await langfuse.getPrompt(name, undefined, { type: 'chat', cacheTtlSeconds: 0 });
  t.equal(fetched.name, name);
  t.same(
    fetched.compile(
      { product: 'svc', ticket: 'It is down' },
      { history: [{ role: 'assistant', content: 'Earlier answer' }] },
    ),
    [
      { role: 'system', content: 'You triage tickets for svc.' },
      { role: 'assistant', content: 'Earlier answer' },
      { role: 'user', content: 'It is down' },
    ],
  );
  const [row] = await storedRows(name);
  t.same(
    row.prompt,
    [
      { type: 'chatmessage', role: 'system', content: 'You triage tickets for {{product}}.' },
      { type: 'placeholder', name: 'history' },
      { type: 'chatmessage', role: 'user', content: '{{ticket}}' },
    ],
    'stored as the SDK sent it',
  );
  t.same(row.labels, ['production', 'latest']);
});
