// Custom plugins (docs/architecture.md "The plugin contract", docs/plugins.md): the worked example
// examples/plugins/tenant-header.ts loaded by path from gateway.yaml, config validation at plugins[N].config.X, the
// load-time checks, and hook order.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import { parse, stringify } from 'yaml';
import { ConfigError } from '../../src/platform/config/config-error.ts';
import { startService, type RunningService } from '../../src/runtime/service.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { baseConfig, chatBody, postJson, TEST_KEY } from '../helpers/service.ts';
import { freshPostgresDatabase } from '../helpers/store.ts';
import { sleep, waitFor } from '../helpers/wait-for.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLE = join(ROOT, 'examples/plugins/tenant-header.ts');
const GATEWAY_ERROR = pathToFileURL(join(ROOT, 'src/platform/errors/gateway-error.ts')).href;

interface Setup {
  dir: string;
  configPath: string;
}

/** A temp dir for a gateway.yaml and plugin modules beside it; removed when the test ends. */
function workspace(t: Test, files: Record<string, string> = {}): Setup {
  const dir = mkdtempSync(join(tmpdir(), 'svc-plugin-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return { dir, configPath: join(dir, 'gateway.yaml') };
}

function writeConfig(ws: Setup, plugins: unknown[], extra: Record<string, unknown> = {}) {
  writeFileSync(ws.configPath, stringify(baseConfig({ store: { data_dir: join(ws.dir, 'data') }, plugins, ...extra })));
}

/** Starts on a fresh Postgres database (quicker to start than the embedded store) added to the written config. */
async function start(t: Test, ws: Setup): Promise<RunningService> {
  const config = parse(readFileSync(ws.configPath, 'utf8'));
  config.store.postgres_url = await freshPostgresDatabase(t);
  writeFileSync(ws.configPath, stringify(config));
  const service = await startService({
    configPath: ws.configPath,
    log: silentLogger,
    watch: false,
    processMetrics: false,
  });
  t.teardown(() => service.stop());
  return service;
}

async function startFails(ws: Setup): Promise<ConfigError> {
  try {
    const service = await startService({
      configPath: ws.configPath,
      log: silentLogger,
      watch: false,
      processMetrics: false,
    });
    await service.stop();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('the service started');
}

t.test('the example loads by a path relative to gateway.yaml and echoes the header', async (t) => {
  // `./plugins/tenant-header.ts` beside gateway.yaml, as the docs show: a one-line module re-exporting the example.
  const ws = workspace(t, {
    'plugins/tenant-header.ts': `export { default } from ${JSON.stringify(pathToFileURL(EXAMPLE).href)};\n`,
  });
  writeConfig(ws, [
    { use: 'auth' },
    { use: './plugins/tenant-header.ts', config: { header: 'x-tenant', required: true } },
    { use: 'router' },
  ]);
  const { gatewayUrl } = await start(t, ws);

  const ok = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { 'x-tenant': 'acme' });
  t.equal(ok.status, 200);
  t.equal(ok.headers.get('x-tenant'), 'acme', 'the request header is echoed');
  t.equal(ok.headers.get('x-svc-model-group'), 'demo');

  const missing = await postJson(gatewayUrl, '/v1/chat/completions', chatBody());
  t.equal(missing.status, 400, 'required and missing: refused');
  const body = (await missing.json()) as any;
  t.same(body, {
    error: {
      message: "The 'x-tenant' header is required.",
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_request',
    },
  });
  t.match(missing.headers.get('x-svc-request-id'), /^[0-9a-f-]{36}$/);
  t.equal(missing.headers.get('x-tenant'), null);

  const blank = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { 'x-tenant': '   ' });
  t.equal(blank.status, 400, 'a blank value counts as missing');
  const long = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { 'x-tenant': 'a'.repeat(129) });
  t.equal(long.status, 400, 'longer than max_length');
  t.match(((await long.json()) as any).error.message, /at most 128/);
  t.equal(
    (await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { 'x-tenant': 'a'.repeat(128) })).status,
    200,
  );

  const stream = await postJson(gatewayUrl, '/v1/chat/completions', chatBody({ stream: true }), {
    'x-tenant': 'globex',
  });
  t.equal(stream.status, 200);
  t.equal(stream.headers.get('x-tenant'), 'globex', 'streams carry it too');
  t.match(await stream.text(), /data: \[DONE\]/);

  const emb = await postJson(gatewayUrl, '/v1/embeddings', { model: 'demo', input: 'x' }, { 'x-tenant': 'initech' });
  t.equal(emb.headers.get('x-tenant'), 'initech');

  // auth runs first here: no key is a 401 whether or not the tenant is there.
  const noKey = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { authorization: '' });
  t.equal(noKey.status, 401);
  const models = await fetch(`${gatewayUrl}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(models.status, 400, 'the plugin applies to every route, /v1/models included');
  const modelsOk = await fetch(`${gatewayUrl}/v1/models`, {
    headers: { authorization: `Bearer ${TEST_KEY}`, 'x-tenant': 'acme' },
  });
  t.equal(modelsOk.status, 200);
  t.equal(modelsOk.headers.get('x-tenant'), 'acme');
});

t.test('the example by a ../ path and by an absolute path; options and placement before auth', async (t) => {
  const ws = workspace(t);
  const rel = relative(ws.dir, EXAMPLE);
  t.match(rel, /^\.\.\//, 'a path that climbs out of the config directory');
  writeConfig(ws, [
    { use: rel, config: { header: 'x-org', response_header: 'x-svc-tenant' } },
    { use: 'auth' },
    { use: EXAMPLE, config: { header: 'x-team', required: true, max_length: 4 } },
    { use: 'router' },
  ]);
  const { gatewayUrl } = await start(t, ws);

  const ok = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { 'x-org': 'acme', 'x-team': 'blue' });
  t.equal(ok.status, 200);
  t.equal(ok.headers.get('x-svc-tenant'), 'acme', 'response_header renames the echo');
  t.equal(ok.headers.get('x-org'), null);
  t.equal(ok.headers.get('x-team'), 'blue', 'the same module, listed twice, runs twice with its own config');

  const optional = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { 'x-team': 'blue' });
  t.equal(optional.status, 200, 'not required: requests without it pass');
  t.equal(optional.headers.get('x-svc-tenant'), null);

  const refusedByAuth = await postJson(gatewayUrl, '/v1/chat/completions', chatBody({ model: 'nope' }), {
    'x-org': 'acme',
  });
  t.equal(refusedByAuth.status, 403);
  t.equal(refusedByAuth.headers.get('x-svc-tenant'), 'acme', 'a header added before a refusal goes out with it');
  // An unknown key is refused on the request head, before any onRequest (docs/decisions.md "Check order").
  const unknownKey = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), {
    authorization: 'Bearer sk-unknown-0123456789abc',
    'x-org': 'acme',
  });
  t.equal(unknownKey.status, 401);
  t.equal(unknownKey.headers.get('x-svc-tenant'), null, 'refused before the plugin listed first ran');

  const tooLong = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { 'x-team': 'green' });
  t.equal(tooLong.status, 400);
  const nonAscii = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), {
    'x-org': 'caf\u00e9',
    'x-team': 'blue',
  });
  t.equal(nonAscii.status, 400, 'only printable ASCII is echoed');
});

t.test('the example config is validated with errors at plugins[N].config.X', async (t) => {
  const ws = workspace(t);
  const cases: [unknown, { path: string; message: string | RegExp }[]][] = [
    [undefined, [{ path: 'plugins[1].config', message: "must have required property 'header'" }]],
    [{}, [{ path: 'plugins[1].config', message: "must have required property 'header'" }]],
    [{ header: 'X Tenant' }, [{ path: 'plugins[1].config.header', message: /^must match pattern/ }]],
    [{ header: 'x-tenant', required: 'yes' }, [{ path: 'plugins[1].config.required', message: 'must be boolean' }]],
    [{ header: 'x-tenant', max_length: 0 }, [{ path: 'plugins[1].config.max_length', message: 'must be >= 1' }]],
    [{ header: 'x-tenant', colour: 'blue' }, [{ path: 'plugins[1].config', message: "unknown property 'colour'" }]],
    [
      { header: { name: 'x-tenant' }, response_header: '' },
      [
        { path: 'plugins[1].config.header', message: 'must be string' },
        { path: 'plugins[1].config.response_header', message: /^must match pattern/ },
      ],
    ],
  ];
  for (const [config, expected] of cases) {
    writeConfig(ws, [
      { use: 'auth' },
      { use: EXAMPLE, ...(config === undefined ? {} : { config }) },
      { use: 'router' },
    ]);
    const err = await startFails(ws);
    t.match(err.issues, expected, JSON.stringify(config));
    t.equal(err.issues.length, expected.length);
    t.ok(
      err.issues.every((i) => typeof i.line === 'number'),
      'with a line',
    );
    t.match(err.message, `${expected[0].path} (line `);
  }
});

t.test('load-time checks: apiVersion, exports, placement, exactly one terminal plugin, setup failures', async (t) => {
  const ws = workspace(t, {
    'v2.mjs': `export default { apiVersion: 2, name: 'future', setup() { return {}; } };\n`,
    'noversion.mjs': `export default { name: 'old', setup() { return {}; } };\n`,
    'nothing.mjs': `export const unrelated = 1;\n`,
    'named.mjs': `export const plugin = { apiVersion: 1, name: 'named', setup() { return { onRequest(ctx) { ctx.responseHeaders['x-named'] = 'yes'; } }; } };\n`,
    'late.mjs': `export default { apiVersion: 1, name: 'late', setup() { return { onRequest() {}, onLog() {} }; } };\n`,
    'logger.mjs': `export default { apiVersion: 1, name: 'logger', setup() { return { onLog() {}, onResponse() {} }; } };\n`,
    'terminal.mjs': `export default { apiVersion: 1, name: 'other-router', setup() { return { async handle() { return { kind: 'json', status: 200, body: {} }; } }; } };\n`,
    'throws.mjs': `export default { apiVersion: 1, name: 'throws', setup(config) { throw new Error('cannot reach ' + config.url); } };\n`,
    'badschema.mjs': `export default { apiVersion: 1, name: 'bad-schema', configSchema: { type: 'nonsense' }, setup() { return {}; } };\n`,
    'syntax.mjs': `export default {\n`,
  });
  const failsWith = async (plugins: unknown[]) => {
    writeConfig(ws, plugins);
    return startFails(ws);
  };

  const v2 = await failsWith([{ use: 'auth' }, { use: './v2.mjs' }, { use: 'router' }]);
  t.match(v2.issues, [
    { path: 'plugins[1].use', message: "plugin './v2.mjs' declares apiVersion 2; this svc supports apiVersion 1" },
  ]);
  t.match(
    v2.message,
    /plugins\[1\]\.use \(line \d+\): plugin '\.\/v2\.mjs' declares apiVersion 2; this svc supports apiVersion 1/,
  );
  t.match(v2.message, ws.configPath, 'the message names the config file');
  const none = await failsWith([{ use: 'auth' }, { use: './noversion.mjs' }, { use: 'router' }]);
  t.match(none.issues, [
    { path: 'plugins[1].use', message: /declares apiVersion undefined; this svc supports apiVersion 1/ },
  ]);

  const nothing = await failsWith([{ use: 'auth' }, { use: './nothing.mjs' }, { use: 'router' }]);
  t.match(nothing.issues, [
    { path: 'plugins[1].use', message: /'\.\/nothing\.mjs' does not export a plugin definition/ },
  ]);
  const missing = await failsWith([{ use: 'auth' }, { use: './missing.mjs' }, { use: 'router' }]);
  t.match(missing.issues, [{ path: 'plugins[1].use', message: /^cannot load plugin '\.\/missing\.mjs': / }]);
  const syntax = await failsWith([{ use: 'auth' }, { use: './syntax.mjs' }, { use: 'router' }]);
  t.match(syntax.issues, [{ path: 'plugins[1].use', message: /^cannot load plugin '\.\/syntax\.mjs': / }]);
  const badSchema = await failsWith([{ use: 'auth' }, { use: './badschema.mjs' }, { use: 'router' }]);
  t.match(badSchema.issues, [{ path: 'plugins[1].use', message: /has an invalid configSchema/ }]);

  const late = await failsWith([{ use: 'auth' }, { use: 'router' }, { use: './late.mjs' }]);
  t.match(late.issues, [
    { path: 'plugins[2]', message: "'late' has an onRequest hook, so it must be listed before the terminal plugin" },
  ]);
  t.type(late.issues[0].line, 'number');
  const lateAuth = await failsWith([{ use: 'router' }, { use: 'auth' }]);
  t.match(lateAuth.issues, [{ path: 'plugins[1]', message: /'auth' has an onRequest hook/ }]);

  const two = await failsWith([{ use: 'auth' }, { use: './terminal.mjs' }, { use: 'router' }]);
  t.match(two.issues, [{ path: 'plugins', message: /exactly one terminal plugin .* is required; found 2/ }]);
  const twoRouters = await failsWith([{ use: 'auth' }, { use: 'router' }, { use: 'router' }]);
  t.match(twoRouters.issues, [{ path: 'plugins', message: /found 2/ }]);
  const zero = await failsWith([{ use: 'auth' }]);
  t.match(zero.issues, [{ path: 'plugins', message: /found 0/ }]);

  const throws = await failsWith([
    { use: 'auth' },
    { use: './throws.mjs', config: { url: 'http://nowhere' } },
    { use: 'router' },
  ]);
  t.match(throws.issues, [
    { path: 'plugins[1]', message: "setup of './throws.mjs' failed: cannot reach http://nowhere" },
  ]);

  const several = await failsWith([
    { use: './v2.mjs' },
    { use: 'auth', config: { x: 1 } },
    { use: './nothing.mjs' },
    { use: 'router' },
  ]);
  t.same(
    several.issues.map((i) => i.path),
    ['plugins[0].use', 'plugins[1].config', 'plugins[2].use'],
    'every module problem is reported at once',
  );

  // Allowed: a named `plugin` export, and response/log-only plugins after the router.
  writeConfig(ws, [{ use: 'auth' }, { use: './named.mjs' }, { use: 'router' }, { use: './logger.mjs' }]);
  const { gatewayUrl } = await start(t, ws);
  const res = await postJson(gatewayUrl, '/v1/chat/completions', chatBody());
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-named'), 'yes');
});

t.test(
  'hook order: onRequest in list order; onResponse, onEvent, onResponseEnd, onLog in reverse; onLog after refusals',
  async (t) => {
    const ws = workspace(t, {
      'recorder.mjs': `import { GatewayError } from ${JSON.stringify(GATEWAY_ERROR)};
const log = (globalThis.__svcHookLog ??= []);
export default {
  apiVersion: 1,
  name: 'recorder',
  setup(config) {
    const tag = config.tag;
    const hooks = {
      onResponse(ctx, response) { log.push('onResponse:' + tag + ':' + response.kind); },
      onEvent(ctx, chunk) { log.push('onEvent:' + tag); },
      onResponseEnd(ctx) { log.push('onResponseEnd:' + tag); },
      onLog(ctx) { log.push('onLog:' + tag + ':' + ctx.status); },
    };
    if (!config.after) {
      hooks.onRequest = (ctx) => {
        log.push('onRequest:' + tag);
        if (ctx.headers['x-refuse'] === tag) throw new GatewayError('invalid_request', 'refused by ' + tag);
        if (ctx.headers['x-reply'] === tag) return { kind: 'json', status: 299, body: { replied: tag } };
      };
    }
    return hooks;
  },
};
`,
    });
    writeConfig(
      ws,
      [
        { use: './recorder.mjs', config: { tag: 'a' } },
        { use: 'auth' },
        { use: './recorder.mjs', config: { tag: 'b' } },
        { use: 'router' },
        { use: './recorder.mjs', config: { tag: 'c', after: true } },
      ],
      {
        model_groups: [
          { name: 'demo', deployments: [{ id: 'demo-mock', provider: 'mock', model: 'mock-small' }] },
          { name: 'empty', deployments: [{ id: 'off', provider: 'mock', model: 'm', weight: 0 }] },
        ],
        keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['demo', 'empty'] }],
      },
    );
    const { gatewayUrl } = await start(t, ws);
    const log: string[] = ((globalThis as any).__svcHookLog ??= []);

    /** Sends one request and returns the hooks it ran, once its onLog calls are in. */
    const record = async (send: () => Promise<Response>, onLogs: number) => {
      log.length = 0;
      const res = await send();
      await res.arrayBuffer();
      await waitFor(`${onLogs} onLog calls`, () => log.filter((l) => l.startsWith('onLog')).length >= onLogs);
      await sleep(10);
      return { status: res.status, hooks: [...log] };
    };

    const plain = await record(() => postJson(gatewayUrl, '/v1/chat/completions', chatBody()), 3);
    t.equal(plain.status, 200);
    t.same(plain.hooks, [
      'onRequest:a',
      'onRequest:b',
      'onResponse:c:json',
      'onResponse:b:json',
      'onResponse:a:json',
      'onResponseEnd:c',
      'onResponseEnd:b',
      'onResponseEnd:a',
      'onLog:c:200',
      'onLog:b:200',
      'onLog:a:200',
    ]);

    const stream = await record(() => postJson(gatewayUrl, '/v1/chat/completions', chatBody({ stream: true })), 3);
    t.equal(stream.status, 200);
    const events = stream.hooks.filter((h) => h.startsWith('onEvent'));
    t.ok(events.length >= 6, 'several chunks');
    t.equal(events.length % 3, 0);
    for (let i = 0; i < events.length; i += 3)
      t.same(events.slice(i, i + 3), ['onEvent:c', 'onEvent:b', 'onEvent:a'], `chunk ${i / 3}`);
    t.same(
      stream.hooks.filter((h) => !h.startsWith('onEvent')),
      [
        'onRequest:a',
        'onRequest:b',
        'onResponse:c:stream',
        'onResponse:b:stream',
        'onResponse:a:stream',
        'onResponseEnd:c',
        'onResponseEnd:b',
        'onResponseEnd:a',
        'onLog:c:200',
        'onLog:b:200',
        'onLog:a:200',
      ],
    );
    t.equal(
      stream.hooks.indexOf('onResponse:a:stream') < stream.hooks.indexOf('onEvent:c'),
      true,
      'onResponse before the first event',
    );

    const authRefusal = await record(
      () => postJson(gatewayUrl, '/v1/chat/completions', chatBody({ model: 'nope' })),
      2,
    );
    t.equal(authRefusal.status, 403);
    t.same(
      authRefusal.hooks,
      ['onRequest:a', 'onLog:c:403', 'onLog:a:403'],
      'a refusal: onLog for the plugins that ran and those after the router',
    );

    // A missing key is refused on the request head, before any onRequest: no plugin takes part.
    const headRefusal = await record(
      () => postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { authorization: '' }),
      0,
    );
    t.equal(headRefusal.status, 401);
    t.same(headRefusal.hooks, [], 'a head refusal: no hook ran');

    const refusedByB = await record(
      () => postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { 'x-refuse': 'b' }),
      3,
    );
    t.equal(refusedByB.status, 400);
    t.same(refusedByB.hooks, ['onRequest:a', 'onRequest:b', 'onLog:c:400', 'onLog:b:400', 'onLog:a:400']);

    const routerFailure = await record(
      () => postJson(gatewayUrl, '/v1/chat/completions', chatBody({ model: 'empty' })),
      3,
    );
    t.equal(routerFailure.status, 503, 'no_deployment_available from the router');
    t.same(routerFailure.hooks, ['onRequest:a', 'onRequest:b', 'onLog:c:503', 'onLog:b:503', 'onLog:a:503']);

    const replied = await record(() => postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { 'x-reply': 'a' }), 2);
    t.equal(replied.status, 299, 'a plugin may answer itself');
    t.same(
      replied.hooks,
      [
        'onRequest:a',
        'onResponse:c:json',
        'onResponse:a:json',
        'onResponseEnd:c',
        'onResponseEnd:a',
        'onLog:c:299',
        'onLog:a:299',
      ],
      'the router and later plugins do not run',
    );

    const models = await record(
      () => fetch(`${gatewayUrl}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } }),
      3,
    );
    t.equal(models.status, 200);
    t.same(
      models.hooks.filter((h) => h.startsWith('onRequest') || h.startsWith('onLog')),
      ['onRequest:a', 'onRequest:b', 'onLog:c:200', 'onLog:b:200', 'onLog:a:200'],
    );

    const framing = await record(() => postJson(gatewayUrl, '/v1/chat/completions', '{bad'), 0);
    t.equal(framing.status, 400);
    t.same(framing.hooks, [], 'framing refusals happen before any plugin');
  },
);
