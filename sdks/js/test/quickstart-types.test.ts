// The quickstarts type-check (issue 29): every TypeScript and JavaScript block of the SDK's README, docs/sdks/js.md and
// the root README (blocks fenced `ts signature` are call signatures, not code) is compiled with `tsc --strict` against
// the package as a user installs it: its declarations and package.json (exports) under node_modules/svc-sdk of a
// scratch project, the other packages (openai, OpenTelemetry) from the repository's node_modules. JavaScript blocks are
// compiled as TypeScript modules too: what a TypeScript user pasting them gets, and an import that does not resolve is
// an error there (in checked JavaScript it would quietly be `any`). A type error fails the block's test, naming the
// page's line.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../../../test/helpers/cli.ts';
import { codeBlocks, type FencedBlock } from '../../../test/helpers/fenced-blocks.ts';

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const PAGES = ['sdks/js/README.md', 'docs/sdks/js.md', 'README.md'];
const EXTENSION: Record<string, string> = { ts: '.mts', typescript: '.mts', js: '.mts', javascript: '.mts' };

function tsc(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [TSC, ...args], { cwd: ROOT, timeout: 300_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, output: stdout + stderr });
    });
  });
}

const fileOf = (block: FencedBlock) =>
  `${block.page.replace(/[/.]/g, '-')}-line-${block.line}${EXTENSION[block.lang]!}`;

const blocks = codeBlocks(ROOT, PAGES, Object.keys(EXTENSION));
mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
const project = mkdtempSync(join(ROOT, 'test-artifacts', 'quickstart-ts-'));
t.teardown(() => rmSync(project, { recursive: true, force: true }));

const sdk = join(project, 'node_modules', 'svc-sdk');
const build = await tsc(['-p', 'sdks/js/tsconfig.build.json', '--emitDeclarationOnly', '--outDir', join(sdk, 'dist')]);
copyFileSync(join(ROOT, 'sdks/js/package.json'), join(sdk, 'package.json'));
for (const block of blocks) writeFileSync(join(project, fileOf(block)), block.body);
writeFileSync(
  join(project, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      types: ['node'],
      skipLibCheck: true,
    },
    files: blocks.map(fileOf),
  }),
);
const check = await tsc(['-p', join(project, 'tsconfig.json'), '--pretty', 'false']);

t.test('the SDK declarations build', async (t) => {
  t.equal(build.code, 0, build.output);
});

t.test('the quickstart of the SDK README is among the checked blocks', async (t) => {
  t.ok(blocks.some((b) => b.page === 'sdks/js/README.md' && b.body.includes("from 'svc-sdk'")));
});

for (const block of blocks) {
  t.test(`${block.page}:${block.line} (${block.lang}) passes tsc --strict`, async (t) => {
    // tsc reports `file(line,col): error TS…`; the page's line is the block's first line plus the file's line - 1.
    const errors = check.output
      .split('\n')
      .filter((l) => l.startsWith(fileOf(block) + '(') || l.includes(`/${fileOf(block)}(`))
      .map((l) =>
        l.replace(
          /^.*?\((\d+),(\d+)\)/,
          (_, n: string, c: string) => `${block.page}:${block.line + Number(n) - 1}:${c}`,
        ),
      );
    t.same(errors, [], errors.join('\n'));
  });
}

t.test('tsc found no error outside the blocks', async (t) => {
  t.equal(check.code, 0, check.output);
});
