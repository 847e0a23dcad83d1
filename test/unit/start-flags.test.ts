// How the server process starts is written twice, in package.json's start script and in the `svc` command's shebang
// (npx svc, a global install): both launch paths must run it the same way, with the same environment and Node flags.
import t from 'tap';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const start = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: { start: string } })
  .scripts.start;
const shebang = readFileSync(new URL('src/runtime/cli.ts', root), 'utf8').split('\n')[0];

t.test('npm start and the svc command set the same environment and pass the same Node flags', async (t) => {
  const fromStart = /^((?:\w+=\S*\s+)*)exec node (.*?)\s*dist\/src\/runtime\/cli\.js/.exec(start);
  const fromShebang = /^#!\/usr\/bin\/env -S ((?:\w+=\S*\s+)*)node (.*)$/.exec(shebang);
  t.ok(fromStart, `the start script runs node with flags: ${start}`);
  t.ok(fromShebang, `the shebang runs node with flags: ${shebang}`);
  const [, startEnv, startFlags] = fromStart!;
  const [, shebangEnv, shebangFlags] = fromShebang!;
  t.equal(shebangEnv.trim(), startEnv.trim(), 'the same environment');
  t.equal(shebangFlags, startFlags, 'the same flags');
  t.match(startEnv, /\bMALLOC_MMAP_THRESHOLD_=\d+/, "the compilers' freed working memory goes back to the system");
  t.match(startFlags, /--max-semi-space-size=\d+/, 'the young generation is bounded');
  t.match(startFlags, /--heap-growing-percent=\d+/, 'the old generation is collected before it grows far');
});
