// gateway.yaml loading: ${VAR} interpolation, defaults, and validation errors that name the YAML path and line.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError, formatIssue, yamlPath, type ConfigIssue } from '../../src/platform/config/config-error.ts';
import { interpolate } from '../../src/platform/config/interpolate.ts';
import { loadConfigFile, parseConfig } from '../../src/platform/config/load-config.ts';
import { resolvePlugins } from '../../src/gateway/pipeline/load-pipeline.ts';
import { BUILTIN_PLUGINS } from '../../plugins/index.ts';

const MINIMAL = `version: 1
model_groups:
  - name: demo
    deployments:
      - { id: demo-mock, provider: mock, model: mock-small }
plugins:
  - use: auth
  - use: router
`;

/** The issues a config text produces (parse, schema and cross checks, then plugin configs). */
async function issuesOf(text: string, env: Record<string, string> = {}): Promise<ConfigIssue[]> {
  try {
    const loaded = parseConfig(text, { env });
    await resolvePlugins(loaded, BUILTIN_PLUGINS);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  return [];
}

t.test('interpolate(): ${VAR} and ${VAR:-default}', async (t) => {
  const env = { A: 'alpha', EMPTY: '', NUM: '42' };
  t.equal(interpolate('${A}', env), 'alpha');
  t.equal(interpolate('x-${A}-y', env), 'x-alpha-y');
  t.equal(interpolate('${A}${NUM}', env), 'alpha42');
  t.equal(interpolate('${UNSET}', env), '', 'unset without a default is empty');
  t.equal(interpolate('${UNSET:-fallback}', env), 'fallback');
  t.equal(interpolate('${EMPTY:-fallback}', env), 'fallback', 'an empty variable takes the default too');
  t.equal(interpolate('${A:-fallback}', env), 'alpha');
  t.equal(interpolate('${UNSET:-}', env), '', 'an empty default');
  t.equal(interpolate('${UNSET:-http://h:1/v1}', env), 'http://h:1/v1', 'defaults may hold colons and slashes');
  t.equal(interpolate('$A and $ {A} and ${1A}', env), '$A and $ {A} and ${1A}', 'only ${NAME} forms are references');
  t.equal(interpolate('no references', env), 'no references');
});

t.test('interpolation in YAML: plain scalars are typed, quoted ones stay strings', async (t) => {
  const text = `version: 1
server:
  port: \${PORT}
  admin_port: \${ADMIN_PORT:-9091}
  max_body_bytes: \${MAX_BODY:-2048}
  watch_config: \${WATCH}
  host: \${HOST:-127.0.0.1}
store: { data_dir: "\${DATA:-./state}" }
model_groups:
  - name: \${GROUP:-demo}
    owned_by: "\${OWNER}"
    deployments:
      - id: oai
        provider: openai
        base_url: "http://\${UP_HOST:-localhost}:\${UP_PORT:-8000}/v1"
        api_key: "\${NUMERIC_KEY}"
        model: '\${MODEL}'
        headers:
          x-team: "\${TEAM}"
          x-raw: \${TEAM}
        timeout_ms: \${TIMEOUT:-1500}
        price:
          input_per_mtok: \${PRICE_IN}
          output_per_mtok: \${PRICE_OUT:-0.6}
keys:
  - { alias: k, key: "\${KEY}", project: default, model_groups: [demo] }
  - alias: gen
    key: \${UNSET_KEY}
    project: default
    model_groups: [demo]
plugins: [{ use: auth }, { use: router }]
`;
  const env = {
    PORT: '9090',
    WATCH: 'false',
    OWNER: '1234',
    NUMERIC_KEY: '007',
    MODEL: 'gpt-4o',
    TEAM: 'a: b # not a comment',
    PRICE_IN: '0.15',
    KEY: 'sk-with-$-and-#-0123456789',
  };
  const { config } = parseConfig(text, { env });
  t.equal(config.server.port, 9090, 'plain ${PORT} becomes a number');
  t.equal(config.server.admin_port, 9091, 'the default is typed too');
  t.equal(config.server.max_body_bytes, 2048);
  t.equal(config.server.watch_config, false, 'true/false become booleans');
  t.equal(config.server.host, '127.0.0.1', 'a plain value that is not a number stays a string');
  t.equal(config.store.data_dir, './state');
  t.equal(config.model_groups[0].name, 'demo');
  t.equal(config.model_groups[0].owned_by, '1234', 'a quoted number stays a string');
  const d = config.model_groups[0].deployments[0];
  t.equal(d.base_url, 'http://localhost:8000/v1', 'several references in one value');
  t.equal(d.api_key, '007', 'quoted: leading zeros kept');
  t.equal(d.model, 'gpt-4o', 'single-quoted works the same');
  t.same(
    d.headers,
    { 'x-team': 'a: b # not a comment', 'x-raw': 'a: b # not a comment' },
    'values are not re-parsed as YAML',
  );
  t.equal(d.timeout_ms, 1500);
  t.same(d.price, { input_per_mtok: 0.15, output_per_mtok: 0.6 }, 'decimals are typed');
  t.equal(config.keys[0].key, 'sk-with-$-and-#-0123456789');
  t.equal(config.keys[1].key, '', 'an unset variable without default is empty (the key is generated at start)');
});

t.test('a reference yields a string; validation coerces it only where the schema wants a number', async (t) => {
  const text = `version: 1
model_groups:
  - name: demo
    owned_by: \${OWNER}
    deployments:
      - { id: d, provider: mock, model: m }
plugins: [{ use: auth }, { use: router }]
`;
  t.equal(
    parseConfig(text, { env: { OWNER: '1234' } }).config.model_groups[0].owned_by,
    '1234',
    'digits stay a string where a string is expected',
  );
  const port = await issuesOf(MINIMAL.replace('version: 1', 'version: 1\nserver:\n  port: ${PORT}'), {});
  t.same(
    port,
    [{ path: 'server.port', message: 'must be integer (PORT is not set in the environment)', line: 3 }],
    'an unset number is an empty string: a type error that names the variable',
  );
  const notNumber = await issuesOf(MINIMAL.replace('version: 1', 'version: 1\nserver:\n  port: ${PORT}'), {
    PORT: 'eighty',
  });
  t.same(notNumber, [{ path: 'server.port', message: 'must be integer', line: 3 }]);
});

t.test(
  'inside flow collections a reference must be quoted (YAML reads { as a flow map); quoted, it is coerced like any other',
  async (t) => {
    const unquoted = await issuesOf(MINIMAL.replace('version: 1', 'version: 1\nserver: { port: ${PORT} }'), {
      PORT: '9000',
    });
    t.equal(
      unquoted.length,
      1,
      'an unquoted reference in { } is a YAML syntax error: the first one only, the rest follow from it',
    );
    t.match(unquoted[0], {
      path: '',
      line: 2,
      message:
        /^column \d+: Unexpected .*\. Hint: inside \{ \} or \[ \], quote values that use \$\{\.\.\.\} .*: "\$\{PORT\}"$/,
    });
    const noHint = await issuesOf('version: 1\nmodel_groups:\n  - name: [\nplugins: []\n');
    t.notMatch(noHint[0].message, /Hint/, 'no hint where no reference is');
    const quoted = parseConfig(
      MINIMAL.replace('version: 1', 'version: 1\nserver: { port: "${PORT}", watch_config: "${WATCH}" }'),
      { env: { PORT: '9000', WATCH: 'false' } },
    );
    t.equal(quoted.config.server.port, 9000);
    t.equal(quoted.config.server.watch_config, false);
    const block = parseConfig(MINIMAL.replace('version: 1', 'version: 1\nserver:\n  port: ${PORT}'), {
      env: { PORT: '9000' },
    });
    t.equal(block.config.server.port, 9000, 'block style too');
  },
);

t.test('defaults are applied', async (t) => {
  const { config, warnings, baseDir } = parseConfig(MINIMAL, { env: {} });
  t.same(config.server, {
    host: '0.0.0.0',
    admin_host: '127.0.0.1',
    port: 8080,
    admin_port: 8081,
    max_body_bytes: 4_718_592,
    large_request_bytes: 0,
    workers: 1,
    drain_timeout_ms: 30_000,
    watch_config: true,
    request_timeout_ms: 30_000,
    headers_timeout_ms: 10_000,
    max_connections: 4096,
  });
  t.same(config.store, {
    postgres_url: '',
    data_dir: './data',
    key_poll_ms: 500,
    max_key_staleness_s: 120,
    trace_queue_capacity: 10000,
    trace_batch_size: 500,
    query_timeout_ms: 5000,
    redis_url: '',
    redis_prefix: 'svc:',
    encryption_key: '',
  });
  t.same(config.organization, { id: 'default', name: 'Default organization' });
  t.same(config.agents, []);
  t.same(config.projects, [
    { id: 'default', name: 'Default', max_key_expiry_hours: 720, ingestion_only: false, serving: true, budgets: [] },
  ]);
  t.same(config.org_units, []);
  t.same(config.keys, []);
  t.same(config.model_groups[0].routing, {
    strategy: 'weighted',
    retries: 2,
    timeout_ms: 30_000,
    bench_ms: 5000,
    max_backoff_ms: 2000,
  });
  t.equal(config.model_groups[0].deployments[0].weight, 1);
  t.same(warnings, []);
  t.equal(baseDir, process.cwd(), 'in-memory text resolves against the working directory');
  const withKey = parseConfig(`${MINIMAL}keys:\n  - { alias: k, project: default, model_groups: [demo] }\n`, {
    env: {},
  });
  t.match(withKey.config.keys[0], { rotation_grace_hours: 0, blocked: false, budget_period: 'total' });
  const withBudget = parseConfig(
    `${MINIMAL}agents:\n  - { id: a, project: default, name: a, budgets: [{ usd: 2 }] }\n`,
    { env: {} },
  );
  t.same(
    withBudget.config.agents[0].budgets,
    [{ usd: 2, period: 'monthly', mode: 'hard' }],
    'a budget is monthly and hard unless it says otherwise',
  );
});

t.test('organization units: references checked at load; chains that cannot be built are warnings', async (t) => {
  const units = (list: string, keys = '') => `${MINIMAL}org_units:\n${list}${keys ? `keys:\n${keys}` : ''}`;
  t.match(await issuesOf(units('  - { id: u, project: nowhere }\n')), [
    { path: 'org_units[0].project', message: "unknown project 'nowhere'" },
  ]);
  t.match(await issuesOf(units('  - { id: u, project: default }\n  - { id: u, project: default }\n')), [
    { path: 'org_units[1].id', message: "duplicate organization unit 'u'" },
  ]);
  t.match(await issuesOf(units('  - { id: u, project: default, budgets: [{ usd: 0 }] }\n')), [
    { path: 'org_units[0].budgets[0].usd' },
  ]);
  const loop = parseConfig(
    units(
      '  - { id: a, project: default, parent: b }\n  - { id: b, project: default, parent: a }\n',
      '  - { alias: k1, project: default, model_groups: [demo], unit: a }\n  - { alias: k2, project: default, model_groups: [demo], unit: ghost }\n',
    ),
    { env: {} },
  );
  t.same(loop.warnings, [
    "key 'k1': organization units form a cycle through 'a'; its requests get 503 budget_config_invalid",
    "key 'k2': unknown organization unit 'ghost'; its requests get 503 budget_config_invalid",
  ]);
});

t.test('schema errors name the YAML path and the line', async (t) => {
  const text = `version: 1
server:
  port: 99999
  bogus: true
model_groups:
  - name: demo
    routing: { retries: -1 }
    deployments:
      - id: demo-mock
        provider: cohere
        model: m
      - id: oai
        provider: openai
        model: gpt
      - id: "bad id!"
        provider: mock
        model: m
plugins:
  - use: auth
  - use: router
    extra: 1
`;
  const issues = await issuesOf(text);
  t.same(issues, [
    { path: 'server', message: "unknown property 'bogus'", line: 3 },
    { path: 'server.port', message: 'must be <= 65535', line: 3 },
    { path: 'model_groups[0].routing.retries', message: 'must be >= 0', line: 7 },
    {
      path: 'model_groups[0].deployments[0].provider',
      message: 'must be one of "mock", "openai", "azure", "anthropic", "bedrock", "vertex"',
      line: 10,
    },
    { path: 'model_groups[0].deployments[1]', message: "must have required property 'base_url'", line: 12 },
    {
      path: 'model_groups[0].deployments[2].id',
      message: 'must match pattern "^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$"',
      line: 15,
    },
    { path: 'plugins[1]', message: "unknown property 'extra'", line: 20 },
  ]);
  let error: unknown;
  try {
    parseConfig(text, { env: {}, path: '/etc/svc/gateway.yaml' });
  } catch (err) {
    error = err;
  }
  t.type(error, ConfigError);
  const message = (error as Error).message;
  t.match(message, /^\/etc\/svc\/gateway\.yaml: invalid configuration\n/);
  t.match(
    message,
    '  model_groups[0].deployments[0].provider (line 10): must be one of "mock", "openai", "azure", "anthropic", "bedrock", "vertex"',
  );
  t.match(message, "  server (line 3): unknown property 'bogus'");
});

t.test('a deployment without a provider gets one error, not one per provider family', async (t) => {
  const issues = await issuesOf(
    MINIMAL.replace('{ id: demo-mock, provider: mock, model: mock-small }', '{ id: demo-mock, model: mock-small }'),
  );
  t.same(issues, [
    { path: 'model_groups[0].deployments[0]', message: "must have required property 'provider'", line: 5 },
  ]);
});

t.test('missing required sections and wrong version', async (t) => {
  t.same(await issuesOf('version: 2\n'), [
    { path: '', message: "must have required property 'model_groups'", line: 1 },
    { path: '', message: "must have required property 'plugins'", line: 1 },
    { path: 'version', message: 'must be 1', line: 1 },
  ]);
  t.same(
    await issuesOf(''),
    [
      { path: '', message: "must have required property 'version'", line: undefined },
      { path: '', message: "must have required property 'model_groups'", line: undefined },
      { path: '', message: "must have required property 'plugins'", line: undefined },
    ],
    'an empty file',
  );
  t.equal(formatIssue({ path: '', message: 'x', line: 1 }), '(root) (line 1): x');
  t.equal(formatIssue({ path: 'a.b', message: 'x' }), 'a.b: x');
});

t.test('cross-checks: duplicates and references between sections', async (t) => {
  const text = `version: 1
projects:
  - { id: default }
  - { id: default }
model_groups:
  - name: a
    fallback: nowhere
    deployments:
      - { id: d1, provider: mock, model: m }
  - name: b
    fallback: b
    deployments:
      - { id: d1, provider: mock, model: m }
  - name: a
    deployments:
      - { id: d2, provider: mock, model: m }
keys:
  - { alias: k1, key: sk-long-enough-0123456789, project: default, model_groups: [a, ghost] }
  - { alias: k1, key: short, project: other, model_groups: [b] }
  - alias: k3
    key: sk-long-enough-9876543210
    key_sha256: "${'0'.repeat(64)}"
    project: default
    allowed_networks: [10.0.0.0/8, 300.1.1.1, 010.0.0.0/8]
plugins: [{ use: auth }, { use: router }]
`;
  t.same(await issuesOf(text), [
    { path: 'projects[1].id', message: "duplicate project id 'default'", line: 4 },
    { path: 'model_groups[1].deployments[0].id', message: "duplicate deployment id 'd1'", line: 13 },
    { path: 'model_groups[2].name', message: "duplicate model group 'a'", line: 14 },
    { path: 'model_groups[0].fallback', message: "unknown model group 'nowhere'", line: 7 },
    { path: 'model_groups[1].fallback', message: 'a group cannot fall back to itself', line: 11 },
    { path: 'keys[0].model_groups[1]', message: "unknown model group 'ghost'", line: 18 },
    { path: 'keys[1].alias', message: "duplicate key alias 'k1'", line: 19 },
    { path: 'keys[1].project', message: "unknown project 'other'", line: 19 },
    { path: 'keys[1].key', message: 'must be at least 16 characters', line: 19 },
    { path: 'keys[2]', message: 'set either key or key_sha256, not both', line: 20 },
    {
      path: 'keys[2].allowed_networks[1]',
      message: "'300.1.1.1' is not an IPv4 or IPv6 address or CIDR range",
      line: 24,
    },
    {
      path: 'keys[2].allowed_networks[2]',
      message: "'010.0.0.0/8' is not an IPv4 or IPv6 address or CIDR range",
      line: 24,
    },
  ]);
});

t.test('plugin config errors are reported at plugins[N].config.X', async (t) => {
  const text = `version: 1
model_groups:
  - name: demo
    deployments:
      - { id: d, provider: mock, model: m }
plugins:
  - use: auth
    config: { strict: true }
  - use: router
    config:
      backoff_base_ms: -1
      disconnect_drain_ms: fast
  - use: no-such-plugin-package-svc
`;
  const issues = await issuesOf(text);
  t.same(issues.slice(0, 3), [
    { path: 'plugins[0].config', message: "unknown property 'strict'", line: 8 },
    { path: 'plugins[1].config.backoff_base_ms', message: 'must be >= 0', line: 11 },
    { path: 'plugins[1].config.disconnect_drain_ms', message: 'must be integer', line: 12 },
  ]);
  t.equal(issues.length, 4);
  t.match(issues[3], {
    path: 'plugins[2].use',
    line: 13,
    message: /^unknown plugin 'no-such-plugin-package-svc': the built-in plugins are auth, guardrails, /,
  });
  t.equal(formatIssue(issues[1]), 'plugins[1].config.backoff_base_ms (line 11): must be >= 0');
});

t.test('plugin config defaults are applied and the given config is not mutated', async (t) => {
  const loaded = parseConfig(
    MINIMAL.replace('  - use: router', '  - use: router\n    config: { backoff_base_ms: 5 }'),
    { env: {} },
  );
  const resolved = await resolvePlugins(loaded, BUILTIN_PLUGINS);
  t.same(
    resolved.map((r) => r.use),
    ['auth', 'router'],
  );
  t.same(resolved[1].config, { backoff_base_ms: 5, disconnect_drain_ms: 30_000, disconnect_drain_chunks: 20_000 });
  t.same(loaded.config.plugins[1].config, { backoff_base_ms: 5 }, 'the config as written is kept');
});

t.test('YAML syntax errors and duplicate keys carry a line', async (t) => {
  const dup = await issuesOf('version: 1\nmodel_groups: []\nversion: 1\n');
  t.equal(dup.length, 1);
  t.match(dup[0], { path: '', line: 3, message: /unique/ });
  const broken = await issuesOf('version: 1\nmodel_groups:\n  - name: [\nplugins: []\n');
  t.ok(broken.length >= 1);
  t.equal(broken[0].path, '');
  t.type(broken[0].line, 'number', 'the line of a syntax error is known');
  const tabs = await issuesOf('version: 1\n\tmodel_groups: []\n');
  t.ok(tabs.length >= 1 && tabs.every((i) => typeof i.line === 'number'));
});

t.test('every problem is reported at once', async (t) => {
  const text = `version: 1
server: { port: -1, admin_port: x }
model_groups:
  - name: demo
    deployments:
      - { id: d, provider: openai }
keys:
  - { alias: k, project: default, model_groups: [demo], rpm: 0 }
plugins:
  - use: auth
  - use: router
`;
  const issues = await issuesOf(text);
  t.same(
    issues.map((i) => i.path),
    [
      'server.port',
      'server.admin_port',
      'model_groups[0].deployments[0]',
      'model_groups[0].deployments[0]',
      'keys[0].rpm',
    ],
  );
  t.same(
    issues.map((i) => i.line),
    [2, 2, 6, 6, 8],
  );
});

t.test('warnings do not stop a config: openai/azure deployments without api_key', async (t) => {
  const loaded = parseConfig(
    MINIMAL.replace(
      '      - { id: demo-mock, provider: mock, model: mock-small }',
      '      - { id: demo-mock, provider: mock, model: mock-small }\n      - { id: oai, provider: openai, base_url: "https://x/v1", model: m, api_key: "${NOPE}" }',
    ),
    { env: {} },
  );
  t.same(loaded.warnings, ["deployment 'oai' has no api_key and is out of rotation until one is set"]);
});

t.test('loadConfigFile: baseDir is the file directory; a missing file is a config error', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'gateway.yaml');
  writeFileSync(path, MINIMAL);
  const loaded = await loadConfigFile(path, {});
  t.equal(loaded.path, path);
  t.equal(loaded.baseDir, dir);
  t.equal(loaded.lineOf(['model_groups', 0, 'deployments', 0, 'id']), 5);
  t.equal(loaded.lineOf(['plugins', 1]), 8);
  t.equal(loaded.lineOf(['plugins', 1, 'config', 'rpm']), 8, 'a missing node falls back to its nearest ancestor');
  await t.rejects(loadConfigFile(join(dir, 'missing.yaml'), {}), {
    name: 'ConfigError',
    issues: [{ path: '', message: /cannot read .*missing\.yaml/ }],
  });
});

t.test('yamlPath', async (t) => {
  t.equal(yamlPath(['plugins', 3, 'config', 'rpm']), 'plugins[3].config.rpm');
  t.equal(yamlPath(['model_groups', '0', 'deployments', '1', 'provider']), 'model_groups[0].deployments[1].provider');
  t.equal(yamlPath(['headers', 'x.y']), 'headers["x.y"]');
  t.equal(yamlPath(['a-b', 'c_d']), 'a-b.c_d');
  t.equal(yamlPath([]), '');
});

t.test('server.workers: auto or 1 to 256 threads, one issue for anything else', async (t) => {
  const withWorkers = (value: string) => MINIMAL.replace('version: 1', `version: 1\nserver: { workers: ${value} }`);
  for (const ok of ['auto', '1', '256']) t.same(await issuesOf(withWorkers(ok)), [], `workers: ${ok}`);
  t.equal(parseConfig(withWorkers('256'), { env: {} }).config.server.workers, 256);
  t.equal(parseConfig(withWorkers('auto'), { env: {} }).config.server.workers, 'auto');
  for (const bad of ['0', '257', '2.5', 'many', '-1'])
    t.same(
      await issuesOf(withWorkers(bad)),
      [{ path: 'server.workers', message: 'must be "auto" or an integer from 1 to 256', line: 2 }],
      `workers: ${bad}`,
    );
});
