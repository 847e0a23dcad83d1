// Entry point of one bench server process, started by bench/run.ts with an IPC channel:
//   node bench/server-process.ts upstream
//   node bench/server-process.ts floor   <upstream base URL>
//   node bench/server-process.ts gateway <upstream base URL>
// It reports {type:'ready', url} once listening, answers {type:'cpu'} with its process.cpuUsage(), and
// closes and exits on {type:'stop'} (so a --cpu-prof profile is written) or when the parent goes away.
import { startFakeUpstream } from './fake-upstream.ts';
import { startFloorProxy } from './floor-proxy.ts';
import { startGatewayTarget } from './gateway-target.ts';

export type Role = 'upstream' | 'floor' | 'gateway';

export type ToChild = { type: 'cpu'; id: number } | { type: 'stop' };
export type FromChild =
  | { type: 'ready'; url: string }
  | { type: 'cpu'; id: number; user: number; system: number }
  | { type: 'stopped' };

async function main(): Promise<void> {
  const [role, upstreamUrl] = process.argv.slice(2) as [Role, string | undefined];
  if (!process.send) throw new Error('bench/server-process.ts must be started by bench/run.ts (it needs an IPC channel)');
  const send = (m: FromChild) => process.send!(m);
  let target: { url: string; close(): Promise<void> };
  if (role === 'upstream') target = await startFakeUpstream();
  else if (role === 'floor') target = await startFloorProxy(upstreamUrl!);
  else if (role === 'gateway') target = await startGatewayTarget(upstreamUrl!);
  else throw new Error(`unknown role '${String(role)}'`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.race([target.close(), new Promise((r) => setTimeout(r, 2000))]);
    if (process.connected) send({ type: 'stopped' });
    process.exit(0);
  };
  process.on('message', (m: ToChild) => {
    if (m.type === 'cpu') {
      const usage = process.cpuUsage();
      send({ type: 'cpu', id: m.id, user: usage.user, system: usage.system });
    } else if (m.type === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
  send({ type: 'ready', url: target.url });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
