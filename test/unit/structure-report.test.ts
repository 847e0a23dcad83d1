// scripts/structure-report.ts, run as its readers run it (a child process, --json): on a tiny tree with planted loops,
// an upward import, a plugin import past the contract and a per-chunk hook, each is found; on the real tree the
// report has its shape and agrees with itself. No figure of today's tree is asserted: the restructure changes them.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { parse } from 'yaml';
import type { StructureReport } from '../../scripts/structure-report.ts';
import { ROOT } from '../helpers/cli.ts';

const SCRIPT = join(ROOT, 'scripts/structure-report.ts');

async function report(...args: string[]): Promise<StructureReport> {
  const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT, '--json', ...args], {
    maxBuffer: 16 * 1024 * 1024,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  return JSON.parse(stdout) as StructureReport;
}

const FIXTURE: Record<string, string> = {
  // store (ground) imports prompts (observability), which imports it back by type: a loop and an upward import.
  'src/platform/store/rows.ts':
    "import { promptName } from '../../observability/prompts/names.ts';\nexport type Row = { name: string };\n",
  'src/observability/prompts/names.ts':
    "import type { Row } from '../../platform/store/rows.ts';\nexport const promptName = (r: Row) => r.name;\n",
  // server and pipeline (both gateway) loop through a lazy import only.
  'src/gateway/server/listen.ts': "import { run } from '../pipeline/run.ts';\nexport const listen = () => run();\n",
  'src/gateway/pipeline/run.ts': "export async function run() {\n  await import('../server/listen.ts');\n}\n",
  'src/plugin-api/index.ts': "export type { Row } from '../platform/store/rows.ts';\n",
  'src/new-folder/thing.ts': 'export const thing = 1;\n',
  'plugins/demo/index.ts': [
    "import type { Row } from '../../src/plugin-api/index.ts';",
    "import { promptName } from '../../src/observability/prompts/names.ts';",
    "import { helper } from './helper.ts';",
    'export default { setup: () => ({ observeEvent(ctx: Row) { helper(promptName(ctx)); } }) };',
    '',
  ].join('\n'),
  'plugins/demo/helper.ts': 'export const helper = (s: string) => s;\n',
  'gateway.yaml': 'plugins:\n  - use: demo\n',
};

t.test('a tiny tree: planted loops, an upward import, an import past the contract, a chunk hook', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'structure-fixture-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(FIXTURE)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const r = await report('--root', root);

  t.equal(r.files, 8);
  t.same(
    r.cycles,
    [['src/observability/prompts/names.ts', 'src/platform/store/rows.ts']],
    'the lazy loop is no file cycle',
  );
  t.same(r.unitLoops, [
    { size: 2, units: ['src/gateway/pipeline/', 'src/gateway/server/'] },
    { size: 2, units: ['src/observability/prompts/', 'src/platform/store/'] },
  ]);
  t.same(
    r.bands.crossings.map((c) => [c.from, c.to, c.direction, c.imports]),
    [['src/platform/store/', 'src/observability/prompts/', 'up', { value: 1, type: 0, lazy: 0 }]],
  );
  t.same(r.bands.totals, { value: 1, type: 0, lazy: 0, imports: 1, pairs: 1 });
  t.same(r.bands.unassigned, ['src/new-folder/']);
  t.same(r.pluginContract.imports, [
    { from: 'plugins/demo/index.ts', to: 'src/observability/prompts/names.ts', kind: 'value', behindContract: false },
  ]);
  t.same(r.pluginContract.perPlugin, { 'plugins/demo/': 1 });
  t.equal(r.pluginContract.modulesNotBehindContract, 1);
  t.same(r.chunkHooks.plugins, ['demo']);
  t.same(
    r.chunkHooks.withChunkHook.map((h) => [h.plugin, h.hook, h.where]),
    [['demo', 'observeEvent', 'plugins/demo/index.ts:4']],
  );
});

t.test('the real tree: every part of the report, consistent with itself', async (t) => {
  const r = await report();
  t.ok(r.files > 100);
  for (const loop of r.unitLoops) {
    t.equal(loop.size, loop.units.length);
    t.ok(loop.size > 1);
  }
  t.equal(r.bands.units['src/plugin-api/'], 'ground');
  t.equal(r.bands.units['src/runtime/'], 'runtime');
  t.equal(
    r.bands.totals.imports,
    r.bands.crossings.reduce((sum, c) => sum + c.count, 0),
  );
  for (const c of r.bands.crossings) t.not(c.fromBand, 'runtime', `${c.from} may import anything`);
  for (const i of r.pluginContract.imports) {
    t.match(i.from, /^(plugins|examples)\//);
    t.not(i.to, 'src/plugin-api/index.ts');
  }
  const config = parse(readFileSync(join(ROOT, 'gateway.yaml'), 'utf8')) as { plugins: { use: string }[] };
  t.same(
    r.chunkHooks.plugins,
    config.plugins.map((p) => p.use),
  );
  t.ok(r.longestFunctions.length > 0);
  t.equal(r.touched, undefined, 'the service is started only with --touched');
});

t.test('--touched: the modules one chat request runs code in', async (t) => {
  const { touched } = await report('--touched', '--top', '1');
  t.ok(touched);
  t.ok(touched!.files.some((f) => f.startsWith('src/')));
  t.ok(touched!.files.some((f) => f.startsWith('plugins/')));
  for (const f of touched!.files) t.match(f, /^(src|plugins|admin)\/.+\.ts$/);
  t.same(touched!.folders, [...new Set(touched!.files.map((f) => `${dirname(f)}/`))].sort());
  t.ok(touched!.units.length <= touched!.folders.length);
});
