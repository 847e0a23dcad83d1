// The server's Node flags are written twice, in package.json's start script and in the `svc` command's shebang
// (npx svc, a global install): both launch paths must run it the same way.
import t from 'tap';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const start = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: { start: string } })
  .scripts.start;
const shebang = readFileSync(new URL('src/runtime/cli.ts', root), 'utf8').split('\n')[0];

t.test('npm start and the svc command pass the same Node flags', async (t) => {
  const fromStart = /\bnode (.*?)\s*dist\/src\/runtime\/cli\.js/.exec(start)?.[1];
  const fromShebang = /^#!\/usr\/bin\/env -S node (.*)$/.exec(shebang)?.[1];
  t.ok(fromStart, `the start script runs node with flags: ${start}`);
  t.equal(fromShebang, fromStart);
  t.match(fromStart, /--max-semi-space-size=\d+/, 'the young generation is bounded');
  t.match(fromStart, /--heap-growing-percent=\d+/, 'the old generation is collected before it grows far');
});
