// Entry point of one bench server process, started by bench/run.ts with an IPC channel:
//   node bench/server-process.ts upstream
//   node bench/server-process.ts floor   <upstream base URL>
//   node bench/server-process.ts gateway <upstream base URL>
//   node bench/server-process.ts gateway-traced <upstream base URL>   (tracing plugin on, embedded store)
//   node bench/server-process.ts gateway-anthropic <upstream base URL> (an Anthropic deployment: translated)
// It reports {type:'ready', url} once listening, answers {type:'cpu'} with its process.cpuUsage(), records a
// V8 CPU profile between {type:'profile-start'} and {type:'profile-stop'} (written to the given path), and
// answers {type:'settle'} once its background work (trace writes) is done, and closes and exits on {type:'stop'} or
// when the parent goes away.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

export type Role = 'upstream' | 'floor' | 'gateway' | 'gateway-traced' | 'gateway-anthropic';

export type ToChild =
  | { type: 'cpu'; id: number }
  | { type: 'profile-start'; id: number }
  | { type: 'profile-stop'; id: number; path: string }
  | { type: 'settle'; id: number }
  | { type: 'stop' };
export type FromChild =
  | { type: 'ready'; url: string }
  | { type: 'cpu'; id: number; user: number; system: number }
  | { type: 'done'; id: number }
  | { type: 'stopped' };

/** Sampling interval of the CPU profiler, microseconds. */
const PROFILE_INTERVAL_US = 250;

async function main(): Promise<void> {
  const [role, upstreamUrl] = process.argv.slice(2) as [Role, string | undefined];
  if (!process.send)
    throw new Error('bench/server-process.ts must be started by bench/run.ts (it needs an IPC channel)');
  const send = (m: FromChild) => process.send!(m);
  let target: { url: string; close(): Promise<void>; settle?(): Promise<void> };
  // Imported on demand: the floor and upstream processes never load the gateway's code.
  if (role === 'upstream') target = await (await import('./fake-upstream.ts')).startFakeUpstream();
  else if (role === 'floor') target = await (await import('./floor-proxy.ts')).startFloorProxy(upstreamUrl!);
  else if (role === 'gateway')
    target = await (await import('./gateway-target.ts')).startGatewayTarget(upstreamUrl!, { tracing: false });
  else if (role === 'gateway-traced')
    target = await (await import('./gateway-target.ts')).startGatewayTarget(upstreamUrl!, { tracing: true });
  else if (role === 'gateway-anthropic')
    target = await (
      await import('./gateway-target.ts')
    ).startGatewayTarget(upstreamUrl!, { tracing: false, provider: 'anthropic' });
  else throw new Error(`unknown role '${String(role)}'`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.race([target.close(), new Promise((r) => setTimeout(r, 2000))]);
    if (process.connected) send({ type: 'stopped' });
    process.exit(0);
  };
  let session: Session | undefined;
  process.on('message', async (m: ToChild) => {
    if (m.type === 'cpu') {
      const usage = process.cpuUsage();
      send({ type: 'cpu', id: m.id, user: usage.user, system: usage.system });
    } else if (m.type === 'profile-start') {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: PROFILE_INTERVAL_US });
      await session.post('Profiler.start');
      send({ type: 'done', id: m.id });
    } else if (m.type === 'profile-stop') {
      const { profile } = await session!.post('Profiler.stop');
      writeFileSync(m.path, JSON.stringify(profile));
      session!.disconnect();
      send({ type: 'done', id: m.id });
    } else if (m.type === 'settle') {
      await target.settle?.();
      send({ type: 'done', id: m.id });
    } else if (m.type === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
  send({ type: 'ready', url: target.url });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
