// Hot reload (service.reload(), file watching, SIGHUP) and graceful drain on SIGTERM (docs/configuration.md
// "Reload", docs/architecture.md "Reload"): a bad configuration never replaces a good one, and says why on /metrics.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t, { type Test } from 'tap';
import { stringify } from 'yaml';
import { freePort } from '../helpers/ports.ts';
import { baseConfig, chatBody, postJson, startTestService, TEST_KEY } from '../helpers/service.ts';
import { sleep, waitFor } from '../helpers/wait-for.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** A deadline for Promise.race that does not keep the test process alive once everything else is done. */
const deadline = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
const NEW_KEY = 'sk-test-new-key-0123456789abcdef';

const mockGroup = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  created_at: '2026-01-01T00:00:00Z',
  deployments: [{ id: `${name}-mock`, provider: 'mock', model: `mock-${name}`, ...extra }],
});

/** The config after the change: a new group `alpha`, and the old key replaced by a new one. */
const changedConfig = () =>
  baseConfig({
    model_groups: [mockGroup('demo'), mockGroup('alpha')],
    keys: [{ alias: 'new', key: NEW_KEY, project: 'default', model_groups: ['demo', 'alpha'] }],
  });

async function modelIds(url: string, key: string): Promise<string[] | number> {
  const res = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) return res.status;
  return ((await res.json()) as any).data.map((m: any) => m.id);
}

async function metricsOf(adminUrl: string): Promise<any> {
  return (await fetch(`${adminUrl}/metrics`)).json();
}

t.test('reload() swaps in new groups and keys without a restart', async (t) => {
  const { gatewayUrl, adminUrl, service, writeConfig } = await startTestService(t, baseConfig());
  t.same(await modelIds(gatewayUrl, TEST_KEY), ['demo']);
  t.equal(await modelIds(gatewayUrl, NEW_KEY), 401);

  writeConfig(changedConfig());
  t.equal(await modelIds(gatewayUrl, NEW_KEY), 401, 'nothing changes before the reload (watching is off)');
  t.same(await service.reload(), { ok: true });
  t.same(await modelIds(gatewayUrl, NEW_KEY), ['alpha', 'demo'], 'the new key and group work');
  t.equal(await modelIds(gatewayUrl, TEST_KEY), 401, 'the removed key is refused');
  const res = await postJson(gatewayUrl, '/v1/chat/completions', chatBody({ model: 'alpha' }), {
    authorization: `Bearer ${NEW_KEY}`,
  });
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-svc-deployment'), 'alpha-mock');
  t.same(
    service.current().config.model_groups.map((g) => g.name),
    ['demo', 'alpha'],
  );

  const m = await metricsOf(adminUrl);
  t.match(m.configuration, { status: 'ok', reloads: 1, last_reload_error: null });
  t.ok(Date.parse(m.configuration.loaded_at) > 0);
});

t.test('a bad reload keeps the old configuration serving and says why on /metrics; a good one clears it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-reload-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'v2.mjs'), `export default { apiVersion: 2, name: 'v2', setup() { return {}; } };\n`);
  writeFileSync(
    join(dir, 'throws.mjs'),
    `export default { apiVersion: 1, name: 'throws', setup() { throw new Error('no connection'); } };\n`,
  );
  const { gatewayUrl, adminUrl, service, writeConfig, configPath } = await startTestService(t, baseConfig());
  const before = (await metricsOf(adminUrl)).configuration;

  const bad: [string, () => void, RegExp][] = [
    [
      'unknown fallback group',
      () => writeConfig(baseConfig({ model_groups: [{ ...mockGroup('demo'), fallback: 'ghost' }] })),
      /model_groups\[0\]\.fallback \(line \d+\): unknown model group 'ghost'/,
    ],
    [
      'schema error',
      () => writeConfig(baseConfig({ server: { host: '127.0.0.1', port: 0, admin_port: 0, max_body_bytes: 1 } })),
      /server\.max_body_bytes \(line \d+\): must be >= 1024/,
    ],
    [
      'plugin config',
      () => writeConfig(baseConfig({ plugins: [{ use: 'auth' }, { use: 'router', config: { backoff_base_ms: -1 } }] })),
      /plugins\[1\]\.config\.backoff_base_ms \(line \d+\): must be >= 0/,
    ],
    [
      'plugin apiVersion',
      () => writeConfig(baseConfig({ plugins: [{ use: 'auth' }, { use: join(dir, 'v2.mjs') }, { use: 'router' }] })),
      /plugins\[1\]\.use \(line \d+\): plugin '.*v2\.mjs' declares apiVersion 2; this svc supports apiVersion 1/,
    ],
    [
      'plugin setup throws',
      () =>
        writeConfig(baseConfig({ plugins: [{ use: 'auth' }, { use: join(dir, 'throws.mjs') }, { use: 'router' }] })),
      /plugins\[1\] \(line \d+\): setup of '.*throws\.mjs' failed: no connection/,
    ],
    [
      'no terminal plugin',
      () => writeConfig(baseConfig({ plugins: [{ use: 'auth' }] })),
      /plugins \(line \d+\): exactly one terminal plugin/,
    ],
    ['YAML syntax', () => writeFileSync(configPath, 'version: 1\nmodel_groups: [\n'), /\(root\) \(line \d+\): /],
    ['missing file', () => rmSync(configPath), /cannot read/],
  ];
  for (const [name, write, message] of bad) {
    write();
    const result = await service.reload();
    t.equal(result.ok, false, `${name}: refused`);
    t.match((result as { error: string }).error, message, `${name}: the error names the YAML path`);
    t.same(await modelIds(gatewayUrl, TEST_KEY), ['demo'], `${name}: the old configuration still serves`);
    t.equal((await postJson(gatewayUrl, '/v1/chat/completions', chatBody())).status, 200);
    const m = await metricsOf(adminUrl);
    t.equal(m.configuration.status, 'last_reload_failed', `${name}: /metrics says so`);
    t.match(m.configuration.last_reload_error, { at: String, message });
    t.equal(m.configuration.reloads, 0, 'failed reloads are not counted as reloads');
    t.equal(m.configuration.loaded_at, before.loaded_at, 'the loaded config is still the first one');
  }
  // A failed reload does not take the gateway out of rotation: the old configuration is complete and serving.
  t.equal((await fetch(`${gatewayUrl}/ready`)).status, 200);
  const prom = await (await fetch(`${adminUrl}/metrics?format=prometheus`)).text();
  t.match(prom, /svc_config_last_reload_failed 1/);
  t.match(prom, new RegExp(`svc_config_reloads_total\\{result="error"\\} ${bad.length}`));

  writeConfig(changedConfig());
  t.same(await service.reload(), { ok: true });
  const m = await metricsOf(adminUrl);
  t.match(m.configuration, { status: 'ok', last_reload_error: null, reloads: 1 });
  t.not(m.configuration.loaded_at, before.loaded_at);
  t.same(await modelIds(gatewayUrl, NEW_KEY), ['alpha', 'demo']);
  t.match(await (await fetch(`${adminUrl}/metrics?format=prometheus`)).text(), /svc_config_last_reload_failed 0/);
});

t.test(
  'requests in flight finish on the configuration they started with; the old pipeline closes after them',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-reload-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const closer = join(dir, 'closer.mjs');
    writeFileSync(
      closer,
      `const log = (globalThis.__svcCloseLog ??= []);
export default { apiVersion: 1, name: 'closer', setup(config) { return { onRequest() {}, close() { log.push(config.generation); } }; } };\n`,
    );
    const closed: number[] = ((globalThis as any).__svcCloseLog ??= []);
    const slow = (generation: number) =>
      baseConfig({
        model_groups: [mockGroup('demo', { mock: { latency_ms: 400 } })],
        plugins: [{ use: 'auth' }, { use: closer, config: { generation } }, { use: 'router' }],
      });
    const { gatewayUrl, service, writeConfig } = await startTestService(t, slow(1));

    const inFlight = postJson(gatewayUrl, '/v1/chat/completions', chatBody());
    await sleep(100);
    writeConfig({
      ...changedConfig(),
      plugins: [{ use: 'auth' }, { use: closer, config: { generation: 2 } }, { use: 'router' }],
    });
    t.same(await service.reload(), { ok: true });
    t.equal(await modelIds(gatewayUrl, TEST_KEY), 401, 'new requests see the new configuration at once');
    t.same(closed, [], 'the old pipeline is not closed while a request uses it');
    const res = await inFlight;
    t.equal(res.status, 200, 'the request that started on the old configuration (and its old key) completes');
    t.equal(res.headers.get('x-svc-model-group'), 'demo');
    await waitFor('then the old pipeline closes', () => closed.length === 1, 1000);
    t.same(closed, [1]);

    writeConfig(slow(3));
    t.same(await service.reload(), { ok: true });
    await waitFor('an idle old pipeline closes at once', () => closed.length === 2, 1000);
    t.same(closed, [1, 2]);
  },
);

t.test('with watch: true a rewrite of the file is picked up', async (t) => {
  const { gatewayUrl, adminUrl, writeConfig } = await startTestService(t, baseConfig(), { watch: true });
  writeConfig(changedConfig());
  const started = Date.now();
  await waitFor(
    'reloaded within 2 s',
    async () => JSON.stringify(await modelIds(gatewayUrl, NEW_KEY)) === '["alpha","demo"]',
    2000,
  );
  t.ok(Date.now() - started < 2000);
  t.equal((await metricsOf(adminUrl)).configuration.reloads, 1, 'a burst of file events is one reload');

  writeConfig(baseConfig({ model_groups: [{ ...mockGroup('demo'), fallback: 'ghost' }] }));
  await waitFor(
    'a bad rewrite is reported',
    async () => (await metricsOf(adminUrl)).configuration.status === 'last_reload_failed',
    2000,
  );
  t.match((await metricsOf(adminUrl)).configuration.last_reload_error.message, /model_groups\[0\]\.fallback/);
  t.same(await modelIds(gatewayUrl, NEW_KEY), ['alpha', 'demo'], 'and the last good configuration keeps serving');

  writeConfig(baseConfig());
  await waitFor('a fixed file is picked up', async () => (await modelIds(gatewayUrl, TEST_KEY)) instanceof Array, 2000);
  t.equal((await metricsOf(adminUrl)).configuration.status, 'ok');
});

interface Cli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startCli(t: Test, configPath: string, port: number, adminPort: number): Promise<Cli> {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'src/runtime/cli.ts'),
      'start',
      '--config',
      configPath,
      '--port',
      String(port),
      '--admin-port',
      String(adminPort),
    ],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const up = await Promise.race([
    (async () => {
      while (!out.includes('svc gateway listening')) await sleep(20);
      return true;
    })(),
    exited.then(() => false),
    deadline(60_000).then(() => false),
  ]);
  if (!up) throw new Error(`the CLI did not start:\n${out}\n${err}`);
  return { child, stdout: () => out, stderr: () => err, exited };
}

t.test('svc start: SIGHUP reloads, SIGTERM drains in-flight requests and exits 0', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'gateway.yaml');
  const write = (config: Record<string, any>) =>
    writeFileSync(
      configPath,
      stringify({ ...config, server: { host: '127.0.0.1', watch_config: false }, store: { data_dir: './data' } }),
    );
  const slowDemo = () => ({ ...mockGroup('demo', { mock: { latency_ms: 500 } }) });
  write(baseConfig({ model_groups: [slowDemo()] }));
  const [port, adminPort] = [await freePort(), await freePort()];
  const cli = await startCli(t, configPath, port, adminPort);
  const gatewayUrl = `http://127.0.0.1:${port}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  t.match(
    cli.stdout(),
    `svc gateway listening on 127.0.0.1:${port} (loopback only): ${gatewayUrl}/v1 (role all)\n` +
      `svc admin listening on 127.0.0.1:${adminPort} (loopback only): ${adminUrl}`,
  );
  t.same(await modelIds(gatewayUrl, TEST_KEY), ['demo']);

  // SIGHUP: the rewritten file goes live (file watching is off, so only the signal can do it).
  write({ ...changedConfig(), model_groups: [slowDemo(), mockGroup('alpha')] });
  await sleep(300);
  t.equal(await modelIds(gatewayUrl, NEW_KEY), 401, 'not before the signal');
  cli.child.kill('SIGHUP');
  await waitFor(
    'SIGHUP reloaded the file',
    async () => JSON.stringify(await modelIds(gatewayUrl, NEW_KEY)) === '["alpha","demo"]',
    3000,
  );
  t.equal((await metricsOf(adminUrl)).configuration.reloads, 1);

  // A bad file on SIGHUP: the process keeps serving the last good configuration.
  write(baseConfig({ model_groups: [{ ...mockGroup('demo'), fallback: 'ghost' }] }));
  cli.child.kill('SIGHUP');
  await waitFor(
    'a bad file on SIGHUP is reported',
    async () => (await metricsOf(adminUrl)).configuration.status === 'last_reload_failed',
    3000,
  );
  t.same(await modelIds(gatewayUrl, NEW_KEY), ['alpha', 'demo']);
  t.equal(cli.child.exitCode, null, 'still running');

  // SIGTERM while a slow request is in flight.
  const inFlight = postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { authorization: `Bearer ${NEW_KEY}` });
  await waitFor('the request is in flight', async () => (await metricsOf(adminUrl)).requests.in_flight === 1, 2000);
  cli.child.kill('SIGTERM');
  await waitFor('/ready is 503 while draining', async () => (await fetch(`${adminUrl}/ready`)).status === 503, 1000);
  const ready = await fetch(`${adminUrl}/ready`)
    .then(async (r) => ({ status: r.status, body: await r.json() }))
    .catch(() => undefined);
  if (ready) t.same(ready, { status: 503, body: { status: 'unavailable', reason: 'draining' } });
  const health = await fetch(`${adminUrl}/health`).catch(() => undefined);
  if (health) t.equal(health.status, 200, '/health stays 200: the process is up');
  const refused = await fetch(`${gatewayUrl}/v1/models`, { headers: { authorization: `Bearer ${NEW_KEY}` } }).catch(
    () => undefined,
  );
  if (refused)
    t.equal(
      refused.status,
      503,
      'a new request while draining is a 503 (the drain test below holds the drain open to check it all)',
    );

  const res = await inFlight;
  t.equal(res.status, 200, 'the in-flight request completes');
  t.equal(((await res.json()) as any).object, 'chat.completion');
  const exit = await Promise.race([cli.exited, deadline(5000).then(() => ({ code: -1, signal: null }))]);
  t.same(exit, { code: 0, signal: null }, 'the process exits 0');
  t.match(cli.stdout(), /SIGTERM received, draining/);
  t.notMatch(cli.stderr(), /"level":"error".*unhandled/);
});

/**
 * An OpenAI-compatible upstream whose streams send their first chunk at once and the rest only when `release()` is
 * called, so a test can hold a stream open for as long as it needs.
 */
async function heldStreamUpstream(t: Test): Promise<{ url: string; started: Promise<void>; release(): void }> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const startedP = new Promise<void>((r) => (started = r));
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1, model: 'held', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: 'first' }, null));
      started();
      void released.then(() => {
        res.write(chunk({ content: ' and last' }, null));
        res.write(chunk({}, 'stop'));
        res.write(
          `data: ${JSON.stringify({ id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1, model: 'held', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })}\n\n`,
        );
        res.end('data: [DONE]\n\n');
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    release();
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, started: startedP, release };
}

t.test(
  'svc start: while SIGTERM drains a stream, /ready is 503 on both ports and new requests get a coded 503 with connection: close; the stream finishes, then the ports close',
  async (t) => {
    const upstream = await heldStreamUpstream(t);
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const configPath = join(dir, 'gateway.yaml');
    const config = baseConfig({
      model_groups: [
        {
          name: 'demo',
          created_at: '2026-01-01T00:00:00Z',
          deployments: [
            { id: 'held', provider: 'openai', base_url: `${upstream.url}/v1`, api_key: 'upstream-key', model: 'held' },
          ],
        },
      ],
    });
    writeFileSync(configPath, stringify({ ...config, server: { host: '127.0.0.1' }, store: { data_dir: './data' } }));
    const [port, adminPort] = [await freePort(), await freePort()];
    const cli = await startCli(t, configPath, port, adminPort);
    const gatewayUrl = `http://127.0.0.1:${port}`;
    const adminUrl = `http://127.0.0.1:${adminPort}`;

    const stream = await postJson(gatewayUrl, '/v1/chat/completions', chatBody({ stream: true }));
    t.equal(stream.status, 200, 'the stream started');
    await upstream.started;
    cli.child.kill('SIGTERM');
    // The signal is handled asynchronously: wait until the process says it drains.
    await waitFor('the process is draining', () => cli.stdout().includes('SIGTERM received, draining'), 5000);

    for (const [name, url] of [
      ['gateway', gatewayUrl],
      ['admin', adminUrl],
    ]) {
      const ready = await fetch(`${url}/ready`);
      t.same(
        { status: ready.status, body: await ready.json() },
        { status: 503, body: { status: 'unavailable', reason: 'draining' } },
        `${name} port: /ready is 503 draining`,
      );
      const health = await fetch(`${url}/health`);
      t.equal(health.status, 200, `${name} port: /health stays 200, the process is up`);
      await health.arrayBuffer();
    }
    for (const [label, request] of [
      ['chat', () => postJson(gatewayUrl, '/v1/chat/completions', chatBody())],
      ['embeddings', () => postJson(gatewayUrl, '/v1/embeddings', { model: 'demo', input: 'x' })],
      ['models', () => fetch(`${gatewayUrl}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } })],
    ] as const) {
      const res = await request();
      t.equal(res.status, 503, `${label}: 503`);
      t.equal(res.headers.get('connection'), 'close', `${label}: connection: close`);
      t.match(res.headers.get('x-svc-request-id'), /^[0-9a-f-]{36}$/, `${label}: with a request id`);
      const body = (await res.json()) as any;
      t.same(
        body,
        { error: { message: body.error.message, type: 'server_error', param: null, code: 'gateway_config_stale' } },
        `${label}: gateway_config_stale`,
      );
      t.match(body.error.message, /shutting down/);
    }
    t.equal(cli.child.exitCode, null, 'still running while the stream is open');

    upstream.release();
    const text = await stream.text();
    t.match(
      text,
      /"content":"first"[\s\S]*"content":" and last"[\s\S]*data: \[DONE\]\n\n$/,
      'the stream finished whole',
    );
    const exit = await Promise.race([cli.exited, deadline(5000).then(() => ({ code: -1, signal: null }))]);
    t.same(exit, { code: 0, signal: null }, 'the process exits 0 once the stream is done');
    await t.rejects(fetch(`${gatewayUrl}/health`), 'the gateway port is closed');
  },
);

t.test('SIGTERM with nothing in flight exits at once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'gateway.yaml');
  writeFileSync(
    configPath,
    stringify({ ...baseConfig(), server: { host: '127.0.0.1' }, store: { data_dir: './data' } }),
  );
  const [port, adminPort] = [await freePort(), await freePort()];
  const cli = await startCli(t, configPath, port, adminPort);
  t.equal((await postJson(`http://127.0.0.1:${port}`, '/v1/chat/completions', chatBody())).status, 200);
  const started = Date.now();
  cli.child.kill('SIGTERM');
  const exit = await Promise.race([cli.exited, deadline(5000).then(() => ({ code: -1, signal: null }))]);
  t.same(exit, { code: 0, signal: null });
  t.ok(Date.now() - started < 2000, 'no waiting for the drain deadline (keep-alive connections do not hold it up)');
});
