// The README's OpenAI snippet, run as a reader pastes it (issue 16, item 7): the block is taken from README.md, the
// service is started from the repository's gateway.yaml the way `npm start` does (embedded store, the demo key
// generated and printed once), the printed key goes where the block says to put it, and the block runs in bash in the
// repository directory with the real `openai` package. Only the ports differ: the test listens on free ones.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parseDocument } from 'yaml';
import { cleanEnv, ROOT } from '../helpers/cli.ts';
import { startServiceProcess } from '../helpers/service-process.ts';

/** The fenced block of README.md that holds `text`, without its fences. */
function readmeBlock(text: string): { lang: string; body: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter((m) => m[2].includes(text));
  if (blocks.length !== 1) throw new Error(`README.md: ${blocks.length} blocks hold ${text}`);
  return { lang: blocks[0][1], body: blocks[0][2] };
}

function bash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile('bash', ['-c', script], { cwd: ROOT, env: cleanEnv(), timeout: 60_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

t.test("the README's OpenAI snippet works as pasted against a started service", async (t) => {
  const snippet = readmeBlock("import OpenAI from 'openai'");
  t.equal(snippet.lang, 'sh', 'a block for the shell: it sets the key it reads and runs itself');
  const exportLine = /^export SVC_DEMO_KEY=(\S+)/m.exec(snippet.body);
  t.ok(exportLine, 'the block exports the SVC_DEMO_KEY it reads');
  t.match(snippet.body, /process\.env\.SVC_DEMO_KEY/);

  const dir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const config = parseDocument(readFileSync(join(ROOT, 'gateway.yaml'), 'utf8'));
  config.setIn(['server', 'port'], 0);
  config.setIn(['server', 'admin_port'], 0);
  const configPath = join(dir, 'gateway.yaml');
  writeFileSync(configPath, config.toString());
  const started = await startServiceProcess(t, configPath);
  const printed = /Generated gateway key for 'demo'[^:]*: (sk-svc-\S+)/.exec(started.process.output().stdout);
  t.ok(printed, 'the first start printed the demo key');
  const port = new URL(started.gatewayUrl).port;

  // What the reader does: their printed key in place of the placeholder. The port is the test's.
  const pasted = snippet.body
    .replace(exportLine![0], `export SVC_DEMO_KEY=${printed![1]}`)
    .replaceAll('localhost:8080', `localhost:${port}`);
  t.not(pasted, snippet.body);
  const run = await bash(pasted);
  t.equal(run.code, 0, run.stderr);
  t.equal(
    run.stdout.trim(),
    'This is mock-small, the svc mock provider. You said: "Hi"',
    'the streamed answer of the demo group',
  );
  t.notMatch(run.stderr, /Missing credentials/);
});
