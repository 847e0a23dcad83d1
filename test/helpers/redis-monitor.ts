// The commands a client sent Redis for the keys under a test's prefix, seen with MONITOR. Commands a Lua script ran
// inside itself are left out: a script call is one command. `sent(mark)` returns what was sent since the last call,
// once a marker sent after them has been seen (MONITOR lists commands in the order Redis ran them).
import { Redis } from 'ioredis';
import { REDIS_URL } from './redis.ts';
import { waitFor } from './wait-for.ts';

export interface PrefixMonitor {
  /**
   * Commands (name lowercased, then arguments) sent since the last call. `mark(key)` must send a command naming
   * `key` on the connection whose commands are counted, after them, so that all of them have run when it is seen.
   */
  sent(mark: (key: string) => unknown): Promise<string[][]>;
}

export async function monitorPrefix(t: { teardown(fn: () => unknown): void }, prefix: string): Promise<PrefixMonitor> {
  // Only the monitoring connection is opened: monitor() makes its own from this client's options.
  const monitor = await new Redis(REDIS_URL, { lazyConnect: true }).monitor();
  t.teardown(() => monitor.disconnect());
  let seen: string[][] = [];
  const marksSeen = new Set<string>();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source === 'lua' || !args.some((a) => String(a).startsWith(prefix))) return;
    const mark = args.find((a) => String(a).startsWith(`${prefix}monitor-mark:`));
    if (mark !== undefined) marksSeen.add(String(mark));
    else seen.push([String(args[0]).toLowerCase(), ...args.slice(1).map(String)]);
  });
  let marks = 0;
  return {
    async sent(mark) {
      const key = `monitor-mark:${++marks}`;
      await mark(key);
      await waitFor(`the MONITOR mark ${key}`, () => marksSeen.has(prefix + key));
      const commands = seen;
      seen = [];
      return commands;
    },
  };
}

/** Each command's kind: `script` for a Lua script call (EVAL or EVALSHA), else its name. */
export const commandKinds = (commands: string[][]) =>
  commands.map(([name]) => (/^eval(sha)?$/.test(name) ? 'script' : name));
