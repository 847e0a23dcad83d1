// `svc validate FILE`: exit 0 for a valid file, 1 with every problem printed with its YAML path.
// Runs the CLI from source (Node type stripping), so no build is needed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ROOT, cleanEnv, runCli as svc } from '../helpers/cli.ts';





const dir = mkdtempSync(join(tmpdir(), 'svc-validate-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test("the repository's gateway.yaml is valid", async (t) => {
  const run = await svc(['validate', join(ROOT, 'gateway.yaml')]);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /gateway\.yaml: valid/);
  t.match(run.stdout, /warning: deployment 'oai-mini' has no api_key/, 'provider keys missing from the environment are warnings');
  t.equal(run.stderr, '');

});

t.test('the default file is ./gateway.yaml', async (t) => {
  const run = await svc(['validate'], { cwd: ROOT, env: cleanEnv({ OPENAI_API_KEY: 'sk-x', AZURE_API_KEY: 'az-x' }) });
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /^gateway\.yaml: valid$/m);
  t.notMatch(run.stdout, /warning/, 'no warnings once the provider keys are set');
});

t.test('a bad file: exit 1, every problem printed with its path and line', async (t) => {
  const file = join(dir, 'bad.yaml');
  writeFileSync(
    file,
    `version: 1
server: { port: 70000, colour: blue }
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
  - { alias: k, key: sk-long-enough-0123456789, project: default, model_groups: [demo, ghost] }
plugins:
  - use: auth
  - use: router
    config: { backoff_base_ms: -5 }
`,
  );
  const running = svc(['validate', file]);

  const second = join(dir, 'bad2.yaml');
  writeFileSync(
    second,
    `version: 1
model_groups:
  - name: demo
    fallback: missing-group
    deployments:
      - { id: d1, provider: mock, model: m }
  - name: other
    deployments:
      - { id: d2, provider: mock, model: m }
      - { id: d2, provider: mock, model: m }
keys:
  - { alias: k, key: sk-long-enough-0123456789, project: default, model_groups: [demo, ghost] }
plugins:
  - use: auth
  - use: router
    config: { backoff_base_ms: -5 }
`,
  );
  const running2 = svc(['validate', second]);

  const third = join(dir, 'bad3.yaml');
  writeFileSync(
    third,
    `version: 1
model_groups:
  - name: demo
    deployments:
      - { id: d1, provider: mock, model: m }
plugins:
  - use: auth
  - use: router
    config: { backoff_base_ms: -5, jitter: true }
  - use: ./nowhere/plugin.mjs
`,
  );
  const [run, run2, run3] = await Promise.all([running, running2, svc(['validate', third])]);
  t.equal(run.code, 1);
  t.equal(run.stdout, '');
  const lines = run.stderr.trimEnd().split('\n');
  t.equal(lines[0], `${file}: invalid`);
  // Schema problems stop the cross checks and plugin checks, so they come in rounds: this is round one.
  t.same(lines.slice(1), [
    "  server (line 2): unknown property 'colour'",
    '  server.port (line 2): must be <= 65535',
    '  model_groups[0].deployments[0].provider (line 7): must be one of "mock", "openai", "azure", "anthropic", "bedrock", "vertex"',
  ]);

  // Round two: cross-references. (Plugin configs, like backoff_base_ms: -5 here, are checked in a third round.)
  t.equal(run2.code, 1);
  t.same(run2.stderr.trimEnd().split('\n'), [
    `${second}: invalid`,
    "  model_groups[1].deployments[1].id (line 10): duplicate deployment id 'd2'",
    "  model_groups[0].fallback (line 4): unknown model group 'missing-group'",
    "  keys[0].model_groups[1] (line 12): unknown model group 'ghost'",
  ]);

  t.equal(run3.code, 1);
  const out3 = run3.stderr.trimEnd().split('\n');
  t.same(out3.slice(0, 3), [`${third}: invalid`, "  plugins[1].config (line 9): unknown property 'jitter'", '  plugins[1].config.backoff_base_ms (line 9): must be >= 0']);
  t.match(out3[3], /^ {2}plugins\[2\]\.use \(line 10\): cannot load plugin '\.\/nowhere\/plugin\.mjs': /);
  t.equal(out3.length, 4);
});

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
});
