// What `svc start` logs as warnings: nothing for the shipped gateway.yaml on a fresh data directory, and, for keys of
// gateway.yaml that expired or expire within 7 days, one warning each at start and again at each reload.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { ROOT } from '../helpers/cli.ts';
import { LISTENING, svcStart } from '../helpers/service-process.ts';
import { storeSection } from '../helpers/store.ts';
import { baseConfig, TEST_KEY } from '../helpers/test-config.ts';
import { waitFor } from '../helpers/wait-for.ts';

const DAY_MS = 86_400_000;

/** The log records (JSON lines on stderr) of level warn. */
const warnLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: string; msg: string })
    .filter((r) => r.level === 'warn')
    .map((r) => r.msg);

const tempDir = (t: { teardown(fn: () => unknown): void }) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-start-warnings-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

t.test('the shipped gateway.yaml on a fresh data directory starts without a warning', async (t) => {
  const dir = tempDir(t);
  const configPath = join(dir, 'gateway.yaml');
  copyFileSync(join(ROOT, 'gateway.yaml'), configPath);
  const svc = svcStart(configPath, undefined, ['--port', '0', '--admin-port', '0']);
  t.teardown(() => svc.stop());
  await svc.waitFor(LISTENING.all);
  t.match(svc.output().stdout, /Generated gateway key for 'demo'/, 'a first start on an empty data directory');
  t.same(warnLines(svc.output().stderr), [], 'no warn line');
  t.equal(await svc.stop(), 0);
});

t.test('keys that expired or expire within 7 days: a warning each at start and at each reload', async (t) => {
  const dir = tempDir(t);
  const configPath = join(dir, 'gateway.yaml');
  const now = Date.now();
  const soon = new Date(now + 3 * DAY_MS + 3_600_000).toISOString();
  const yesterday = new Date(now - DAY_MS).toISOString();
  writeFileSync(
    configPath,
    stringify(
      baseConfig({
        store: { data_dir: join(dir, 'data'), ...(await storeSection(t, 'postgres')) },
        keys: [
          { alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['demo'] },
          { alias: 'soon', key: `${TEST_KEY}-soon`, project: 'default', model_groups: ['demo'], expires_at: soon },
          { alias: 'gone', key: `${TEST_KEY}-gone`, project: 'default', model_groups: ['demo'], expires_at: yesterday },
          {
            alias: 'later',
            key: `${TEST_KEY}-later`,
            project: 'default',
            model_groups: ['demo'],
            expires_at: new Date(now + 8 * DAY_MS).toISOString(),
          },
        ],
      }),
    ),
  );
  const expected = [
    `key 'soon' expires at ${soon} (expires_at), in 3 days: then requests with it get 401 key_expired`,
    `key 'gone' expired at ${yesterday} (expires_at): requests with it get 401 key_expired`,
  ];
  const svc = svcStart(configPath);
  t.teardown(() => svc.stop());
  await svc.waitFor(LISTENING.all);
  t.same(warnLines(svc.output().stderr), expected, 'at start; the key 8 days ahead is not announced');

  // Saving the file reloads it.
  writeFileSync(configPath, readFileSync(configPath));
  await waitFor('the reload', async () => svc.output().stderr.includes('configuration reloaded'));
  t.same(warnLines(svc.output().stderr), [...expected, ...expected], 'again at the reload');
  t.equal(await svc.stop(), 0);
});
