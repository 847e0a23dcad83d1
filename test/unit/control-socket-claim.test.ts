// Claiming the control socket (src/runtime/control/control-socket.ts) when its file is there but refuses
// connections: a process that has bound the file but not yet called listen() looks exactly like one that died. The
// claim probes a few times before it takes the file for stale, so a process that starts listening meanwhile keeps
// its socket; a file nobody answers on is replaced.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { claimControlSocket } from '../../src/runtime/control/control-socket.ts';

/** A socket file whose process is gone: a child listens on it and is killed, so nothing unlinks it. */
function staleSocket(path: string): void {
  const script = `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`;
  spawnSync(process.execPath, ['-e', script]);
  if (!existsSync(path)) throw new Error('the stale socket file was not left behind');
}

t.test('a socket that starts answering while the claim probes is live: the claim leaves it alone', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-claim-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'control.sock');
  staleSocket(path);
  // The file refuses connections now; 30 ms into the claim's probes a process listens on it.
  const late = createServer();
  t.teardown(() => new Promise((r) => late.close(r)));
  setTimeout(() => {
    rmSync(path);
    late.listen(path);
  }, 30);
  t.equal(await claimControlSocket(path), 'live');
  t.ok(late.listening, 'the late listener still has its socket');
});

t.test('a socket nobody answers on is stale: the claim replaces it and serves', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-claim-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'control.sock');
  staleSocket(path);
  const claimed = await claimControlSocket(path);
  t.not(claimed, 'live');
  if (claimed !== 'live') await claimed.close();
  t.notOk(existsSync(path), 'closing removes the socket file');
});
