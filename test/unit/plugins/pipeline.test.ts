// The plugin loader and runner without a service: hook names checked at load, the per-pipeline hook lists, the
// response's source, raw provider text, and GatewayError recognised across copies of the package.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import { stringify } from 'yaml';
import { ConfigError } from '../../../src/platform/config/config-error.ts';
import { parseConfig } from '../../../src/platform/config/load-config.ts';
import { resolvePlugins, setupPipeline, type Pipeline } from '../../../src/gateway/pipeline/load-pipeline.ts';
import { runPipeline } from '../../../src/gateway/pipeline/run-pipeline.ts';
import { GatewayError, type RequestContext } from '../../../src/plugin-api/index.ts';
import { makeCtx, pluginServices } from '../../helpers/plugin.ts';
import { baseConfig } from '../../helpers/test-config.ts';
import { BUILTIN_PLUGINS } from '../../../plugins/index.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Plugin modules written to a temp dir, and a pipeline loaded from a gateway.yaml beside them. */
async function load(t: Test, plugins: unknown[], files: Record<string, string> = {}): Promise<Pipeline> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pipeline-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const loaded = parseConfig(stringify(baseConfig({ plugins })), { env: {}, baseDir: dir });
  const pipeline = await setupPipeline(loaded, await resolvePlugins(loaded, BUILTIN_PLUGINS), pluginServices(t));
  t.teardown(() => pipeline.close());
  return pipeline;
}

async function loadFails(t: Test, plugins: unknown[], files: Record<string, string>): Promise<ConfigError> {
  try {
    await load(t, plugins, files);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('the pipeline loaded');
}

const plugin = (hooks: string, extra = '') =>
  `export default { apiVersion: 1, name: 'p'${extra}, setup() { return { ${hooks} }; } };\n`;

t.test('a hook name that is no hook is refused at load, naming the module and the hook', async (t) => {
  const typo = await loadFails(t, [{ use: 'auth' }, { use: './typo.mjs' }, { use: 'router' }], {
    'typo.mjs': plugin('onRequst(ctx) {}, onLog() {}'),
  });
  t.same(typo.issues, [
    {
      path: 'plugins[1]',
      message:
        "setup of './typo.mjs' returned an unknown hook 'onRequst' (the hooks are onRequestHead, onRequest, handle, onResponse, onEvent, observeEvent, onResponseEnd, onLog, close)",
      line: typo.issues[0].line,
    },
  ]);
  t.type(typo.issues[0].line, 'number');

  const notAFunction = await loadFails(t, [{ use: './late.mjs' }, { use: 'router' }], {
    'late.mjs': plugin("onLog: 'yes'"),
  });
  t.match(notAFunction.issues, [
    { path: 'plugins[0]', message: "setup of './late.mjs' returned a hook 'onLog' that is not a function" },
  ]);

  const bothEventHooks = await loadFails(t, [{ use: 'router' }, { use: './both.mjs' }], {
    'both.mjs': plugin('onEvent() {}, observeEvent() {}'),
  });
  t.match(bothEventHooks.issues, [
    {
      path: 'plugins[1]',
      message:
        "setup of './both.mjs' returned both onEvent and observeEvent (a plugin either edits stream chunks, onEvent, or only reads them, observeEvent)",
    },
  ]);

  const notAnObject = await loadFails(t, [{ use: './five.mjs' }, { use: 'router' }], {
    'five.mjs': `export default { apiVersion: 1, name: 'five', setup() { return 5; } };\n`,
  });
  t.match(notAnObject.issues, [
    { path: 'plugins[0]', message: "setup of './five.mjs' must return an object of hooks" },
  ]);

  const onDefinition = await loadFails(t, [{ use: './flat.mjs' }, { use: 'router' }], {
    'flat.mjs': plugin('', ', onRequest() {}'),
  });
  t.match(onDefinition.issues, [
    {
      path: 'plugins[0].use',
      message:
        "plugin './flat.mjs' has an unknown field 'onRequest' in its definition (known: apiVersion, name, configSchema, setup); hooks are returned by setup",
    },
  ]);

  const badChars = await loadFails(t, [{ use: './chars.mjs' }, { use: 'router' }], {
    'chars.mjs': plugin('streamedTextChars: -1, onLog() {}'),
  });
  t.match(badChars.issues, [
    {
      path: 'plugins[0]',
      message:
        "setup of './chars.mjs' returned streamedTextChars -1: it must be a whole number of characters, 0 or more",
    },
  ]);

  const data = await load(t, [{ use: './data.mjs' }, { use: 'router' }], {
    'data.mjs': plugin("label: 'kept for the hooks', onLog: undefined, onRequest() {}"),
  });
  t.equal(data.onRequest.length, 1, 'values that are not functions under other names are the plugin’s own business');
});

t.test('the hook lists are built once per pipeline, per stage a request can reach', async (t) => {
  const files = {
    'a.mjs': plugin('onRequest() {}, onResponse() {}, onLog() {}'),
    'b.mjs': plugin('observeEvent() {}, onLog() {}'),
    'c.mjs': plugin('onEvent() {}, onResponseEnd() {}, onLog() {}'),
  };
  const p = await load(
    t,
    [{ use: './a.mjs' }, { use: 'auth' }, { use: './b.mjs' }, { use: 'router' }, { use: './c.mjs' }],
    files,
  );
  const positions = (list: { index: number }[]) => list.map((x) => x.index);
  t.same(
    p.onRequest.map((h) => [h.plugin.index, h.stage]),
    [
      [0, 1],
      [1, 2],
    ],
    'the onRequest hooks, each with the stage a request ending there has reached',
  );
  t.equal(p.stages.length, 5, 'none, one, two or three request plugins took part; or the router ran too');
  t.same(positions(p.stages[0].onLog), [4], 'plugins after the router take part in every request');
  t.same(positions(p.stages[1].onLog), [4, 0]);
  t.same(positions(p.stages[3].onLog), [4, 2, 0], 'in reverse list order');
  t.same(positions(p.stages[4].onLog), [4, 3, 2, 0], 'once the router ran, its own onLog (routing figures) too');
  t.same(positions(p.stages[4].onResponse), [0]);
  t.same(positions(p.stages[4].events.plugins), [4, 2], 'onEvent and observeEvent in one list, in reverse order');
  t.equal(p.stages[4].events.edit, true, 'one of them has onEvent');
  t.same(positions(p.stages[2].events.plugins), [4]);
  t.same(positions(p.stages[4].onResponseEnd), [4]);
  t.equal(p.stages[2], p.stages[2], 'the same lists for every request');
  t.same(positions(p.onRequestHead), [1], 'the head hooks of the request plugins: here auth only');
});

t.test('onRequestHead: the request plugins that have one, in list order; none after the terminal plugin', async (t) => {
  const p = await load(t, [{ use: './h.mjs' }, { use: 'auth' }, { use: 'router' }], {
    'h.mjs': plugin('onRequestHead() {}'),
  });
  t.same(
    p.onRequestHead.map((x) => x.index),
    [0, 1],
  );
  t.same(
    p.onRequest.map((h) => h.plugin.index),
    [1],
    'a head hook alone adds no onRequest',
  );
  const late = await loadFails(t, [{ use: 'auth' }, { use: 'router' }, { use: './late.mjs' }], {
    'late.mjs': plugin('onRequestHead() {}'),
  });
  t.match(late.issues, [
    { path: 'plugins[2]', message: "'p' has an onRequestHead hook, so it must be listed before the terminal plugin" },
  ]);
});

t.test(
  'a stream keeps the most answer text a plugin taking part reads from ctx.streamed, none when none asks',
  async (t) => {
    const p = await load(t, [{ use: './a.mjs' }, { use: 'auth' }, { use: 'router' }, { use: './c.mjs' }], {
      'a.mjs': plugin('streamedTextChars: 5000, onRequest() {}'),
      'c.mjs': plugin('streamedTextChars: 300, onLog() {}'),
    });
    t.same(
      p.stages.map((s) => s.streamedTextChars),
      [300, 5000, 5000, 5000],
      "before a.mjs took part only c.mjs's 300; from then on 5000",
    );
    const none = await load(t, [{ use: 'auth' }, { use: 'router' }]);
    t.same(
      none.stages.map((s) => s.streamedTextChars),
      [0, 0, 0],
    );
  },
);

/** Runs one request through the pipeline on a real socket; answers with what the client saw and the context. */
async function run(t: Test, pipeline: Pipeline, ctx: RequestContext) {
  const server = createServer((_req, res) => void runPipeline(pipeline, ctx, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => server.close(r)));
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const text = await res.text();
  return { status: res.status, text, headers: res.headers };
}

const RAW = '{ "id": "chatcmpl-raw",\n  "object": "chat.completion", "choices": [] }';

t.test('where the answer came from: upstream, cache or gateway, and a refusal after it leaves it so', async (t) => {
  const files = {
    // Answers itself (a cache) when asked, refuses answers when asked, records the source in onLog.
    'side.mjs': `export default { apiVersion: 1, name: 'side', setup() { return {
      onRequest(ctx) {
        if (ctx.headers['x-cache'] === 'hit') return { kind: 'json', status: 200, source: 'cache', body: { cached: true } };
        if (ctx.headers['x-reply'] === 'yes') return { kind: 'json', status: 299, body: { replied: true } };
        if (ctx.headers['x-refuse'] === 'yes') throw new Error('refused before any answer');
      },
      onResponse(ctx) { if (ctx.headers['x-refuse-answer'] === 'yes') throw new Error('the answer was refused'); },
    }; } };\n`,
    'terminal.mjs': `export default { apiVersion: 1, name: 'terminal', setup() { return {
      async handle() { return { kind: 'json', status: 200, body: { served: true }, raw: ${JSON.stringify(RAW)} }; },
    }; } };\n`,
  };
  const p = await load(t, [{ use: './side.mjs' }, { use: './terminal.mjs' }], files);
  const cases: [Record<string, string>, string, number][] = [
    [{}, 'upstream', 200],
    [{ 'x-cache': 'hit' }, 'cache', 200],
    [{ 'x-reply': 'yes' }, 'gateway', 299],
    [{ 'x-refuse': 'yes' }, 'gateway', 500],
    [{ 'x-cache': 'hit', 'x-refuse-answer': 'yes' }, 'cache', 500],
    [{ 'x-refuse-answer': 'yes' }, 'upstream', 500],
  ];
  for (const [headers, source, status] of cases) {
    const ctx = makeCtx({ headers });
    const seen = await run(t, p, ctx);
    t.equal(seen.status, status, `${JSON.stringify(headers)}: ${status}`);
    t.equal(ctx.source, source, `${JSON.stringify(headers)}: source ${source}`);
  }
});

t.test("the provider's raw JSON text is written as it came unless a plugin with onResponse took part", async (t) => {
  const files = {
    'terminal.mjs': `export default { apiVersion: 1, name: 'terminal', setup() { return {
      async handle() { return { kind: 'json', status: 200, body: JSON.parse(${JSON.stringify(RAW)}), raw: ${JSON.stringify(RAW)} }; },
    }; } };\n`,
    'annotate.mjs': `export default { apiVersion: 1, name: 'annotate', setup() { return {
      onResponse(ctx, r) { if (r.kind === 'json') r.body.note = 'seen'; },
    }; } };\n`,
  };
  const plain = await load(t, [{ use: './terminal.mjs' }], files);
  t.equal((await run(t, plain, makeCtx())).text, RAW, 'byte for byte');
  const annotated = await load(t, [{ use: './annotate.mjs' }, { use: './terminal.mjs' }], files);
  const changed = JSON.parse((await run(t, annotated, makeCtx())).text);
  t.equal(changed.note, 'seen', 'an in-place change by onResponse reaches the client');
  t.equal(changed.id, 'chatcmpl-raw');
});

/** Two chunks as a provider might lay them out: an escaped character, spaces after separators. */
const WIRE = [
  '{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"caf\\u00e9"}}]}',
  '{ "id": "c", "object": "chat.completion.chunk", "choices": [{ "index": 0, "delta": {}, "finish_reason": "stop" }] }',
];
const sse = (datas: string[]) => datas.map((d) => `data: ${d}\n\n`).join('') + 'data: [DONE]\n\n';

t.test("a stream's chunks go out as the provider's text unless a hook may have changed them", async (t) => {
  const wireText = pathToFileURL(join(ROOT, 'src/gateway/providers/openai/wire-text.ts')).href;
  const files = {
    // A terminal plugin whose chunks carry their wire text, as the OpenAI transport's do.
    'terminal.mjs': `import { keepWireText } from ${JSON.stringify(wireText)};
const texts = ${JSON.stringify(WIRE)};
async function* events() { for (const text of texts) { const c = JSON.parse(text); keepWireText(c, text); yield c; } }
export default { apiVersion: 1, name: 'terminal', setup() { return {
  async handle() { return { kind: 'stream', status: 200, events: events() }; },
}; } };\n`,
    'reader.mjs': plugin('observeEvent(ctx, chunk) { globalThis.__svcObserved.push(chunk.choices[0].delta.content); }'),
    'editor.mjs': plugin('onEvent(ctx, chunk) { chunk.edited = true; }'),
    'wrapper.mjs': plugin(`onResponse(ctx, r) {
      if (r.kind !== 'stream') return;
      const inner = r.events;
      return { ...r, events: (async function* () { for await (const c of inner) { c.wrapped = true; yield c; } })() };
    }`),
  };
  const observedContent: unknown[] = ((globalThis as { __svcObserved?: unknown[] }).__svcObserved = []);
  const stream = () => makeCtx({ body: { model: 'demo', messages: [{ role: 'user', content: 'Hi' }], stream: true } });

  const bare = await load(t, [{ use: './terminal.mjs' }], files);
  t.equal(bare.stages.at(-1)!.events.edit, false, 'no onEvent: no hook may change a chunk');
  t.equal((await run(t, bare, stream())).text, sse(WIRE), 'no event hook: byte for byte');

  const observed = await load(t, [{ use: './terminal.mjs' }, { use: './reader.mjs' }], files);
  t.equal((await run(t, observed, stream())).text, sse(WIRE), 'observeEvent only: byte for byte');
  t.same(observedContent, ['café', undefined], 'the reader got the parsed chunks');

  const edited = await load(t, [{ use: './terminal.mjs' }, { use: './reader.mjs' }, { use: './editor.mjs' }], files);
  const editedChunks = WIRE.map((w) => JSON.stringify({ ...JSON.parse(w), edited: true }));
  t.equal((await run(t, edited, stream())).text, sse(editedChunks), 'an in-place edit by onEvent reaches the client');

  const wrapped = await load(t, [{ use: './wrapper.mjs' }, { use: './terminal.mjs' }, { use: './reader.mjs' }], files);
  const wrappedChunks = WIRE.map((w) => JSON.stringify({ ...JSON.parse(w), wrapped: true }));
  t.equal(
    (await run(t, wrapped, stream())).text,
    sse(wrappedChunks),
    'so does a change by events an onResponse put in place',
  );
});

t.test('GatewayError is recognised when it comes from another copy of the package', async (t) => {
  // A custom plugin with its own copy of svc: the same module files loaded from another path.
  const dir = mkdtempSync(join(tmpdir(), 'svc-copy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(join(ROOT, 'src/platform/errors/gateway-error.ts'), join(dir, 'gateway-error.ts'));
  copyFileSync(join(ROOT, 'src/platform/errors/codes.ts'), join(dir, 'codes.ts'));
  const copy = (await import(pathToFileURL(join(dir, 'gateway-error.ts')).href)) as {
    GatewayError: typeof GatewayError;
  };
  t.not(copy.GatewayError, GatewayError, 'two distinct classes');
  const theirs = new copy.GatewayError('budget_exceeded', 'over budget', { retryAfter: 7 });
  const ours = new GatewayError('invalid_request', 'bad');
  t.ok(theirs instanceof GatewayError, "this copy recognises the other copy's error");
  t.ok(ours instanceof copy.GatewayError, 'and the other way round');
  t.notOk(new Error('plain') instanceof GatewayError);
  t.notOk((null as unknown) instanceof GatewayError);
  t.notOk({ code: 'invalid_request', status: 400 } instanceof GatewayError, 'a look-alike object is not one');
  t.same(Object.getOwnPropertySymbols(theirs), [], 'the brand is on the prototype, not on each error');

  class Narrower extends GatewayError {}
  t.notOk(ours instanceof Narrower, 'a subclass keeps the ordinary check');
  t.ok(new Narrower('invalid_request', 'x') instanceof GatewayError);

  // What the client gets when a plugin throws the other copy's error: its code, status and retry-after.
  const files = {
    'copy.mjs': `import { GatewayError } from ${JSON.stringify(pathToFileURL(join(dir, 'gateway-error.ts')).href)};
export default { apiVersion: 1, name: 'copy', setup() { return {
  onRequest() { throw new GatewayError('budget_exceeded', 'over budget', { retryAfter: 7 }); },
}; } };\n`,
  };
  const p = await load(t, [{ use: './copy.mjs' }, { use: 'router' }], files);
  const seen = await run(t, p, makeCtx());
  t.equal(seen.status, 429);
  t.equal(seen.headers.get('retry-after'), '7');
  t.same(JSON.parse(seen.text), {
    error: { message: 'over budget', type: 'rate_limit_error', param: null, code: 'budget_exceeded' },
  });
});
