// `npm test` after the build and typecheck: the TypeScript suite (tap, the JS SDK's tests included), the Python suites
// (the svc SDK, and the Langfuse SDK and OpenTelemetry exporter against our API) and the Java SDK's suite, each run
// whatever the others did, then one line with each suite's counts. Exits 1 when any suite failed or ran nothing.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const SUREFIRE = join(ROOT, 'sdks', 'java', 'target', 'surefire-reports');

interface Counts {
  passed: number;
  failed: number;
}

/** Runs a command with its output passed through; resolves with the exit code and the output. */
function run(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const) {
      from.on('data', (chunk: Buffer) => {
        to.write(chunk);
        output += chunk.toString('utf8');
      });
    }
    child.on('error', (err) => done({ code: 127, output: `${output}\n${err.message}` }));
    child.on('close', (code) => done({ code: code ?? 1, output }));
  });
}

/** tap's closing `# { total: N, pass: P, fail: F }`. */
function tapCounts(output: string): Counts {
  const last = [...output.matchAll(/^# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/gm)].at(-1);
  return { passed: Number(last?.[2] ?? 0), failed: Number(last?.[3] ?? 0) };
}

/** pytest's closing line, e.g. `3 failed, 120 passed, 1 error in 31.20s`. */
function pytestCounts(output: string): Counts {
  const line =
    output
      .trimEnd()
      .split('\n')
      .reverse()
      .find((l) => / in [\d.]+s/.test(l)) ?? '';
  const n = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(line)?.[1] ?? 0);
  return { passed: n('passed'), failed: n('failed') + n('errors?') };
}

/** Surefire's XML reports of the Java run. */
function surefireCounts(): Counts {
  if (!existsSync(SUREFIRE)) return { passed: 0, failed: 0 };
  let tests = 0;
  let failed = 0;
  for (const file of readdirSync(SUREFIRE).filter((f) => f.endsWith('.xml'))) {
    const head = /<testsuite [^>]*>/.exec(readFileSync(join(SUREFIRE, file), 'utf8'))?.[0] ?? '';
    const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(head)?.[1] ?? 0);
    tests += attr('tests') - attr('skipped');
    failed += attr('failures') + attr('errors');
  }
  return { passed: tests - failed, failed };
}

const results: [string, Counts, number][] = [];
const tap = await run('tap', []);
results.push(['typescript', tapCounts(tap.output), tap.code]);
const python = await run('bash', ['scripts/test-python.sh']);
results.push(['python', pytestCounts(python.output), python.code]);
rmSync(SUREFIRE, { recursive: true, force: true });
const java = await run('mvn', ['-B', '-q', '-f', 'sdks/java/pom.xml', 'test']);
results.push(['java', surefireCounts(), java.code]);

const ok = results.every(([, c, code]) => code === 0 && c.failed === 0 && c.passed > 0);
const passed = results.reduce((sum, [, c]) => sum + c.passed, 0);
const failed = results.reduce((sum, [, c]) => sum + c.failed, 0);
console.log(
  `\nsuites: ${results.map(([name, c, code]) => `${name} ${c.passed} passed, ${c.failed} failed${code === 0 ? '' : ` (exit ${code})`}`).join('; ')}`,
);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exitCode = ok ? 0 : 1;
