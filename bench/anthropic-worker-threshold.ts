// Should whole-body Anthropic request translation run on a worker thread above some size? Measures, per body
// shape, the latency and the main-thread (event-loop) busy time of translating inline versus through piscina.
// The answer is recorded in docs/providers/anthropic.md ("Worker threads").
//
//   node bench/anthropic-worker-threshold.ts
import { performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { toAnthropicRequest } from '../src/gateway/providers/anthropic/request-translation.ts';
import type { JsonObject } from '../src/plugin-api/contract.ts';

/** The worker task: translate and serialise, returning the bytes the adapter would send. */
export function translate(body: JsonObject): string {
  return JSON.stringify(toAnthropicRequest(body, { model: 'claude-sonnet-4-5' }));
}

function body(bytes: number, messageBytes: number): JsonObject {
  const messages: JsonObject[] = [{ role: 'system', content: 'You are terse.' }];
  for (let n = 0, i = 0; n < bytes; n += messageBytes + 40, i++) {
    messages.push({ role: i % 2 ? 'assistant' : 'user', content: 'x'.repeat(messageBytes) });
  }
  return { model: 'g', messages, max_tokens: 100 };
}

async function measure(fn: () => unknown, iterations: number): Promise<{ ms: number; busyMs: number }> {
  for (let i = 0; i < 3; i++) await fn();
  const elu = performance.eventLoopUtilization();
  const start = performance.now();
  for (let i = 0; i < iterations; i++) await fn();
  return {
    ms: (performance.now() - start) / iterations,
    busyMs: performance.eventLoopUtilization(elu).active / iterations,
  };
}

if (isMainThread) {
  const pool = new Piscina({ filename: import.meta.url, minThreads: 2, maxThreads: 2 });
  const shapes: Array<[number, number]> = [
    [10_000, 200],
    [100_000, 200],
    [1_000_000, 200],
    [4_000_000, 200],
    [1_000_000, 100_000],
    [4_000_000, 1_000_000],
  ];
  console.log('body bytes | messages | inline ms (busy) | worker ms (main-thread busy)');
  for (const [bytes, messageBytes] of shapes) {
    const b = body(bytes, messageBytes);
    const inline = await measure(() => translate(b), 20);
    const worker = await measure(() => pool.run(b, { name: 'translate' }), 20);
    const f = (n: number) => n.toFixed(2);
    console.log(
      `${bytes} | ${(b.messages as unknown[]).length} | ${f(inline.ms)} (${f(inline.busyMs)}) | ${f(worker.ms)} (${f(worker.busyMs)})`,
    );
  }
  await pool.close();
}
