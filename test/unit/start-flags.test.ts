// How the server process starts is written three times, in package.json's start and svc scripts and in the `svc`
// command's shebang (npx svc, a global install): every launch path must run it the same way, with the same environment
// variables and Node flags.
import t from 'tap';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const scripts = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> })
  .scripts;
const shebang = readFileSync(new URL('src/runtime/cli.ts', root), 'utf8').split('\n')[0];

/** `[NAME=value …] node <flags>` out of a script (`exec node … dist/src/runtime/cli.js …`) or the shebang. */
function settingsOf(launch: RegExpExecArray | null): { env: string; flags: string } | undefined {
  return launch ? { env: launch[1].trim(), flags: launch[2].trim() } : undefined;
}

t.test(
  'npm start, npm run svc and the svc command set the same environment and pass the same Node flags',
  async (t) => {
    const script = (name: string) =>
      settingsOf(/^((?:\w+=\S*\s+)*)exec node\s+(.*?)\s*dist\/src\/runtime\/cli\.js\b/.exec(scripts[name] ?? ''));
    const start = script('start');
    const svc = script('svc');
    const bin = settingsOf(/^#!\/usr\/bin\/env -S ((?:\w+=\S*\s+)*)node\s+(.*)$/.exec(shebang));
    t.ok(start, `the start script runs node with flags: ${scripts.start}`);
    t.same(svc, start, `the svc script starts it alike: ${scripts.svc}`);
    t.same(bin, start, `the shebang starts it alike: ${shebang}`);
    t.match(start?.env, /\bMALLOC_MMAP_THRESHOLD_=\d+/, "the compilers' freed working memory goes back to the system");
    t.match(start?.flags, /--max-semi-space-size=\d+/, 'the young generation is bounded');
    t.match(start?.flags, /--heap-growing-percent=\d+/, 'the old generation is collected before it grows far');
  },
);
