// Prompts against the real service: create (text and chat), get by label (default production) and version, update
// labels, compile, the client-side cache (TTL, refreshed after the client's own changes), and what the cache serves
// when the server is down: the last good version, else the explicit fallback, else the error.
import t from 'tap';
import { startTcpProxy } from '../../../test/helpers/tcp-proxy.ts';
import { ChatPrompt, SvcApiError, SvcClient, SvcConnectionError, SvcError, TextPrompt } from '../src/index.ts';
import { deadUrl, sendPublic, startSdkTestService } from './service.ts';

const svc = await startSdkTestService(t);
const client = new SvcClient(svc.options);

t.test('text prompt: create, get by default label, version and label, compile', async (t) => {
  const v1 = await client.prompts.create({
    name: 'movie-critic',
    prompt: 'As a {{ level }} critic, rate {{movie}}. {{unknown}}',
    labels: ['production'],
    config: { temperature: 0.2 },
    tags: ['movies'],
  });
  t.ok(v1 instanceof TextPrompt);
  t.match(v1, {
    name: 'movie-critic',
    version: 1,
    type: 'text',
    labels: ['production', 'latest'],
    tags: ['movies'],
    config: { temperature: 0.2 },
    isFallback: false,
  });
  const v2 = await client.prompts.create({ name: 'movie-critic', prompt: 'Rate {{movie}}.', commitMessage: 'shorter' });
  t.match(v2, { version: 2, labels: ['latest'], commitMessage: 'shorter' });

  const production = await client.prompts.get('movie-critic');
  t.equal(production.version, 1, 'label production by default');
  t.equal(production.type, 'text');
  t.equal(
    (production as TextPrompt).compile({ level: 'expert', movie: 'Dune' }),
    'As a expert critic, rate Dune. {{unknown}}',
    'unknown variables stay',
  );
  t.equal(
    (production as TextPrompt).compile({ level: 3, movie: { title: 'Up' } }),
    'As a 3 critic, rate {"title":"Up"}. {{unknown}}',
    'non-strings as JSON',
  );
  t.equal((await client.prompts.get('movie-critic', { version: 2 })).version, 2);
  t.equal((await client.prompts.get('movie-critic', { label: 'latest' })).version, 2);
});

t.test('chat prompt in a folder: compile fills variables and placeholders', async (t) => {
  const name = 'support/triage';
  const created = await client.prompts.create({
    name,
    prompt: [
      { role: 'system', content: 'You triage tickets for {{product}}.' },
      { type: 'placeholder', name: 'history' },
      { role: 'user', content: '{{ticket}}' },
    ],
    labels: ['production'],
  });
  t.ok(created instanceof ChatPrompt, 'an array is a chat prompt');
  const got = await client.prompts.get(name);
  t.equal(got.type, 'chat');
  const chat = got as ChatPrompt;
  t.same(
    chat.compile(
      { product: 'svc', ticket: 'It is down' },
      {
        history: [
          { role: 'user', content: 'earlier about {{product}}' },
          { role: 'assistant', content: 'ok' },
        ],
      },
    ),
    [
      { role: 'system', content: 'You triage tickets for svc.' },
      { role: 'user', content: 'earlier about svc' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'It is down' },
    ],
  );
  t.same(
    chat.compile({ product: 'svc' })[1],
    { type: 'placeholder', name: 'history' },
    'a placeholder not given stays',
  );
});

t.test('type: the answer is that type, and a version of the other type throws SvcError', async (t) => {
  await client.prompts.create({ name: 'typed/text', prompt: 'Hi {{who}}', labels: ['production'] });
  const text = await client.prompts.get('typed/text', { type: 'text' });
  t.equal(text.compile({ who: 'Ada' }), 'Hi Ada', 'a TextPrompt: compile answers a string');
  await t.rejects(client.prompts.get('typed/text', { type: 'chat' }), {
    constructor: SvcError,
    message: 'prompt "typed/text" version 1 is a text prompt, not chat',
  });
  const fallback = await client.prompts.get('typed/missing', {
    type: 'chat',
    fallback: [{ role: 'user', content: 'x' }],
  });
  t.match(fallback, { type: 'chat', isFallback: true });
});

t.test('updateLabels moves production, and the client refetches its cached versions of the name', async (t) => {
  await client.prompts.create({ name: 'greeting', prompt: 'Hello v1', labels: ['production'] });
  await client.prompts.create({ name: 'greeting', prompt: 'Hello v2' });
  t.equal((await client.prompts.get('greeting')).version, 1);
  const moved = await client.prompts.updateLabels('greeting', 2, ['production', 'reviewed']);
  t.match(moved, { version: 2, labels: ['latest', 'production', 'reviewed'] });
  t.equal((await client.prompts.get('greeting')).version, 2, 'not the cached version 1');
});

t.test('the cache serves a version for its TTL; cacheTtlSeconds 0 fetches every time', async (t) => {
  await client.prompts.create({ name: 'cached', prompt: 'one', labels: ['production'] });
  await client.prompts.create({ name: 'cached', prompt: 'two' });
  t.equal((await client.prompts.get('cached')).prompt, 'one');
  // Moved behind the client's back (another process): the cached version is served until the TTL ends.
  t.equal(
    (await sendPublic(svc, 'PATCH', '/api/public/v2/prompts/cached/versions/2', { newLabels: ['production'] })).status,
    200,
  );
  t.equal((await client.prompts.get('cached')).prompt, 'one', 'from the cache');
  t.equal((await client.prompts.get('cached', { cacheTtlSeconds: 0 })).prompt, 'two', 'TTL 0 fetches');
  const short = new SvcClient({ ...svc.options, promptCacheTtlSeconds: 0.05 });
  t.equal((await short.prompts.get('cached')).prompt, 'two');
  await sendPublic(svc, 'PATCH', '/api/public/v2/prompts/cached/versions/1', { newLabels: ['production'] });
  await new Promise((r) => setTimeout(r, 100));
  t.equal((await short.prompts.get('cached')).prompt, 'one', 'fetched again once the TTL passed');
});

t.test(
  'errors: a missing prompt is a SvcApiError 404 with the server message; version with label is refused',
  async (t) => {
    const err = await client.prompts.get('nope').then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(err instanceof SvcApiError);
    t.match(err, { status: 404, error: 'NotFoundError', message: /Prompt not found: 'nope' with label 'production'/ });
    await t.rejects(client.prompts.get('nope', { version: 1, label: 'x' }), {
      name: 'SvcError',
      message: 'prompts.get: give a version or a label, not both',
    });
    await t.rejects(client.prompts.create({ name: 'bad', prompt: 'x', labels: ['Not Valid'] }), {
      name: 'SvcApiError',
      status: 400,
      message: /labels/,
    });
    const fallback = await client.prompts.get('nope', { fallback: 'Default {{x}}' });
    t.match(fallback, { isFallback: true, version: 0, type: 'text', name: 'nope' });
    t.equal((fallback as TextPrompt).compile({ x: 'text' }), 'Default text');
  },
);

t.test('server down: the last good version, then the fallback, then the error', async (t) => {
  await client.prompts.create({ name: 'outage', prompt: 'Good {{v}}', labels: ['production'] });
  const adminPort = Number(new URL(svc.s.adminUrl).port);
  const proxy = await startTcpProxy(t, { host: '127.0.0.1', port: adminPort });
  const viaProxy = new SvcClient({
    ...svc.options,
    baseUrl: proxy.through(svc.s.adminUrl),
    maxRetries: 1,
    promptCacheTtlSeconds: 0,
  });
  const good = await viaProxy.prompts.get('outage');
  t.equal(good.version, 1);

  proxy.cut();
  const served = await viaProxy.prompts.get('outage');
  t.equal(served, good, 'the last good version, though its TTL (0) has passed');
  t.equal(served.isFallback, false);
  const fallback = await viaProxy.prompts.get('never-fetched', {
    fallback: [{ role: 'system', content: 'Be {{tone}}' }],
  });
  t.ok(fallback instanceof ChatPrompt);
  t.match(fallback, { isFallback: true, name: 'never-fetched', version: 0 });
  t.same((fallback as ChatPrompt).compile({ tone: 'brief' }), [{ role: 'system', content: 'Be brief' }]);
  const down = await viaProxy.prompts.get('never-fetched').then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(down instanceof SvcConnectionError, 'no version and no fallback: the error');
  t.ok(proxy.refused >= 2, 'the requests reached the cut proxy');

  proxy.restore();
  await client.prompts.create({ name: 'outage', prompt: 'Better', labels: ['production'] });
  t.equal((await viaProxy.prompts.get('outage')).version, 2, 'back up: fetched again');
});

t.test('no server at all: fallback served, else SvcConnectionError', async (t) => {
  const down = new SvcClient({ ...svc.options, baseUrl: await deadUrl(), maxRetries: 0 });
  t.match(await down.prompts.get('anything', { fallback: 'Hi' }), { isFallback: true, prompt: 'Hi' });
  await t.rejects(down.prompts.get('anything'), { name: 'SvcConnectionError', message: /ECONNREFUSED/ });
});

t.test('concurrent gets of one version share one request', async (t) => {
  await client.prompts.create({ name: 'shared', prompt: 'x', labels: ['production'] });
  const fresh = new SvcClient(svc.options);
  const [a, b] = await Promise.all([fresh.prompts.get('shared'), fresh.prompts.get('shared')]);
  t.equal(a, b, 'the same object: one fetch');
});
