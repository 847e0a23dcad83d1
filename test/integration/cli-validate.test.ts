// `svc validate FILE`: exit 0 for a valid file, 1 with every problem printed with its YAML path.
// Runs the CLI from source (Node type stripping), so no build is needed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ROOT, cleanEnv, runCli as svc } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-validate-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test("the repository's gateway.yaml is valid, without a warning", async (t) => {
  const run = await svc(['validate', join(ROOT, 'gateway.yaml')]);
  t.equal(run.code, 0, run.stderr);
  t.equal(run.stdout, `${join(ROOT, 'gateway.yaml')}: valid\n`);
  t.equal(run.stderr, '');
});

t.test('the default file is ./gateway.yaml', async (t) => {
  const run = await svc(['validate'], { cwd: ROOT });
  t.equal(run.code, 0, run.stderr);
  t.equal(run.stdout, 'gateway.yaml: valid\n');
});

t.test('keys that expired or expire within 7 days are warnings; the file stays valid', async (t) => {
  const day = 86_400_000;
  const soon = new Date(Date.now() + 3 * day + 3_600_000).toISOString();
  const yesterday = new Date(Date.now() - day).toISOString();
  const file = join(dir, 'expiring.yaml');
  const key = (alias: string, expiresAt: string) =>
    `  - { alias: ${alias}, key: sk-long-enough-0123456789-${alias}, project: default, model_groups: [demo], expires_at: "${expiresAt}" }`;
  writeFileSync(
    file,
    `version: 1
model_groups:
  - { name: demo, deployments: [{ id: d1, provider: mock, model: m }] }
keys:
${key('soon', soon)}
${key('gone', yesterday)}
${key('later', new Date(Date.now() + 30 * day).toISOString())}
plugins: [{ use: auth }, { use: router }]
`,
  );
  const run = await svc(['validate', file]);
  t.equal(run.code, 0, run.stderr);
  t.same(run.stdout.trimEnd().split('\n'), [
    `warning: key 'soon' expires at ${soon} (expires_at), in 3 days: then requests with it get 401 key_expired`,
    `warning: key 'gone' expired at ${yesterday} (expires_at): requests with it get 401 key_expired`,
    `${file}: valid`,
  ]);
});

t.test(
  'a bad file: exit 1, every schema, reference and plugin problem in one run, with its path and line',
  async (t) => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      `version: 1
server: { port: 70000, colour: blue, admin_port: "\${SVC_TEST_ADMIN_PORT}" }
model_groups:
  - name: demo
    fallback: missing-group
    deployments:
      - { id: d1, provider: bogus, model: m }
  - name: other
    deployments:
      - { id: d2, provider: mock, model: m }
      - { id: d2, provider: mock, model: m }
keys:
  - { alias: k, key: sk-long-enough-0123456789, project: default, model_groups: [demo, ghost], rpmm: 5 }
  - { key: sk-long-enough-0123456789-2, model_groups: [demo] }
plugins:
  - use: auth
  - use: rate-limt
  - use: router
    config: { backoff_base_ms: -5, jitter: true }
  - use: ./nowhere/plugin.mjs
`,
    );
    const run = await svc(['validate', file]);
    t.equal(run.code, 1);
    t.equal(run.stdout, '');
    const lines = run.stderr.trimEnd().split('\n');
    t.same(lines, [
      `${file}: invalid`,
      // The schema: an unknown key with the one it most likely meant, a value from an unset variable saying so.
      "  server (line 2): unknown property 'colour'",
      '  server.port (line 2): must be <= 65535',
      '  server.admin_port (line 2): must be integer (SVC_TEST_ADMIN_PORT is not set in the environment)',
      '  model_groups[0].deployments[0].provider (line 7): must be one of "mock", "openai", "azure", "anthropic", "bedrock", "vertex"',
      "  keys[0] (line 13): unknown property 'rpmm' (did you mean 'rpm'?)",
      "  keys[1] (line 14): must have required property 'alias'",
      "  keys[1] (line 14): must have required property 'project'",
      // References between sections, in the same run (keys[1], missing its alias and project, is left to the above).
      "  model_groups[1].deployments[1].id (line 11): duplicate deployment id 'd2'",
      "  model_groups[0].fallback (line 5): unknown model group 'missing-group'",
      "  keys[0].model_groups[1] (line 13): unknown model group 'ghost'",
      // And the plugins: a misspelt name lists the built-in ones, a missing file names the file.
      "  plugins[1].use (line 17): unknown plugin 'rate-limt' (did you mean 'rate-limit'?): the built-in plugins are auth, guardrails, router, rate-limit, budget, cache, tracing; a plugin of your own is a path (./plugins/my-plugin.mjs) or an installed package",
      "  plugins[2].config (line 19): unknown property 'jitter'",
      '  plugins[2].config.backoff_base_ms (line 19): must be >= 0',
      `  plugins[3].use (line 20): cannot load plugin './nowhere/plugin.mjs': Cannot find module '${join(dir, 'nowhere/plugin.mjs')}'`,
    ]);
  },
);

t.test('YAML syntax errors, a missing file, and environment references', async (t) => {
  const broken = join(dir, 'broken.yaml');
  writeFileSync(broken, 'version: 1\nmodel_groups: [\n  { name: a\nplugins: []\n');
  const [run, missing] = await Promise.all([svc(['validate', broken]), svc(['validate', join(dir, 'nope.yaml')])]);
  t.equal(run.code, 1);
  t.match(run.stderr, /broken\.yaml: invalid\n {2}\(root\) \(line \d+\): /);

  t.equal(missing.code, 1);
  t.match(missing.stderr, /nope\.yaml: invalid\n {2}\(root\): cannot read .*nope\.yaml/);

  const envFile = join(dir, 'env.yaml');
  writeFileSync(
    envFile,
    `version: 1
server:
  port: \${SVC_TEST_PORT:-8080}
model_groups:
  - { name: demo, deployments: [{ id: d1, provider: mock, model: m }] }
plugins: [{ use: auth }, { use: router }]
`,
  );
  const [byDefault, set, bad] = await Promise.all([
    svc(['validate', envFile]),
    svc(['validate', envFile], { env: cleanEnv({ SVC_TEST_PORT: '9000' }) }),
    svc(['validate', envFile], { env: cleanEnv({ SVC_TEST_PORT: 'eighty' }) }),
  ]);
  t.equal(byDefault.code, 0, 'the default applies');
  t.equal(set.code, 0);
  t.equal(bad.code, 1, 'the value comes from the environment of the command');
  t.match(bad.stderr, /server\.port \(line 3\): must be integer/);
});

t.test('usage errors', async (t) => {
  const [unknown, help] = await Promise.all([svc(['frobnicate']), svc(['--help'])]);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /unknown command 'frobnicate'/);
  t.equal(help.code, 0);
  t.match(help.stdout, /svc validate \[FILE\]/);

  const [startHelp, badFlag, missingValue] = await Promise.all([
    svc(['start', '--help']),
    svc(['start', '--bogus']),
    svc(['keys', 'create', '--project']),
  ]);
  t.equal(startHelp.code, 0, 'a command with --help prints the usage instead of starting');
  t.match(startHelp.stdout, /svc start \[--config FILE\]/);
  t.equal(badFlag.code, 2, 'an unknown flag is a usage error');
  t.match(badFlag.stderr, /^svc: Unknown option '--bogus'/);
  t.match(badFlag.stderr, /usage:/);
  t.notMatch(badFlag.stderr, /\n\s+at /, 'no stack trace');
  t.equal(missingValue.code, 2, 'a flag without its value is a usage error');
  t.notMatch(missingValue.stderr, /\n\s+at /, 'no stack trace');
});

t.test('an unquoted ${...} in a flow map: the first parser error, its line and a hint, and nothing more', async (t) => {
  const shipped = readFileSync(join(ROOT, 'gateway.yaml'), 'utf8');
  const file = join(dir, 'unquoted.yaml');
  const broken = shipped.replace(/(server: \{[^\n]*)\bport: 8080\b/, '$1port: ${PORT}');
  t.not(broken, shipped, "the shipped server line's port, made a reference");
  writeFileSync(file, broken);
  const line = broken.split('\n').findIndex((l) => l.includes('${PORT}')) + 1;
  const column = broken.split('\n')[line - 1].indexOf('${PORT}') + 2;
  const run = await svc(['validate', file], { env: cleanEnv({ PORT: '9000' }) });
  t.equal(run.code, 1);
  t.equal(run.stdout, '');
  t.same(run.stderr.trimEnd().split('\n'), [
    `${file}: invalid`,
    `  (root) (line ${line}): column ${column}: Unexpected flow-map-start at node end. Hint: inside { } or [ ], quote values that use \${...} (an unquoted { starts a nested map): "\${PORT}"`,
  ]);

  writeFileSync(file, shipped.replace(/(server: \{[^\n]*)\bport: 8080\b/, '$1port: "${PORT}"'));
  const quoted = await svc(['validate', file], { env: cleanEnv({ PORT: '9000' }) });
  t.equal(quoted.code, 0, `quoted, it is valid: ${quoted.stderr}`);
});

t.test('a long output through a pipe arrives whole: every line, then the exit code', async (t) => {
  const keys = Array.from(
    { length: 3000 },
    (_, i) => `  - { alias: k${i}, key: sk-long-enough-0123456789-${i}, project: nowhere, model_groups: [demo] }`,
  );
  const deployments = Array.from(
    { length: 3000 },
    (_, i) => `      - { id: d${i}, provider: openai, base_url: https://api.example.com/v1, model: m }`,
  );
  const head = 'version: 1\nmodel_groups:\n  - name: demo\n    deployments:\n';
  const plugins = 'plugins: [{ use: auth }, { use: router }]\n';
  const invalid = join(dir, 'many-errors.yaml');
  writeFileSync(invalid, `${head}      - { id: d, provider: mock, model: m }\nkeys:\n${keys.join('\n')}\n${plugins}`);
  const warned = join(dir, 'many-warnings.yaml');
  writeFileSync(warned, `${head}${deployments.join('\n')}\n${plugins}`);
  // Pipes (what execFile reads) are written asynchronously: an exit before the writes finish cut these at random.
  const [errors, warnings] = await Promise.all([svc(['validate', invalid]), svc(['validate', warned])]);
  t.equal(errors.code, 1);
  const errorLines = errors.stderr.trimEnd().split('\n');
  t.equal(errorLines.length, 3001, 'the first line and 3,000 problems on stderr');
  t.equal(errorLines.at(-1), `  keys[2999].project (line ${3006}): unknown project 'nowhere'`);
  t.equal(warnings.code, 0, warnings.stderr);
  const warningLines = warnings.stdout.trimEnd().split('\n');
  t.equal(warningLines.length, 3001, '3,000 warnings and the verdict on stdout');
  t.equal(warningLines.at(-2), "warning: deployment 'd2999' has no api_key and is out of rotation until one is set");
  t.equal(warningLines.at(-1), `${warned}: valid`);
});
