// Measures where SigV4 payload hashing of a Bedrock body should leave the event loop: inline @aws-crypto/sha256-js
// (what the signer does by default) against the worker pool's `sigv4PayloadHash` task (node:crypto in a thread).
// Run: node bench/bedrock-sigv4-hash.ts. The result sets BEDROCK_HASH_IN_WORKER_BYTES (docs/providers/bedrock.md).
import { Sha256 } from '@aws-crypto/sha256-js';
import { createWorkerPool } from '../src/platform/workers/pool.ts';
import { WORKER_TASK_FILES } from '../src/runtime/worker-tasks.ts';

const ROUNDS = 50;
const pool = createWorkerPool(WORKER_TASK_FILES, { maxThreads: 1 });
await pool.run('sigv4PayloadHash', 'warm-up');

console.log('bytes     inline ms   pool round trip ms   pool main-thread ms');
for (const size of [1024, 2048, 4096, 8192, 16384, 32768, 65536, 262144, 1048576, 4194304]) {
  const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'x'.repeat(size) }] }] });
  for (let i = 0; i < 5; i++) {
    const h = new Sha256();
    h.update(body);
    await h.digest();
  }
  let start = performance.now();
  for (let i = 0; i < ROUNDS; i++) {
    const h = new Sha256();
    h.update(body);
    await h.digest();
  }
  const inline = (performance.now() - start) / ROUNDS;
  let dispatch = 0;
  start = performance.now();
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    const pending = pool.run('sigv4PayloadHash', body);
    dispatch += performance.now() - t0;
    await pending;
  }
  const roundTrip = (performance.now() - start) / ROUNDS;
  console.log(
    `${String(size).padEnd(9)} ${inline.toFixed(3).padStart(9)}   ${roundTrip.toFixed(3).padStart(18)}   ${(dispatch / ROUNDS).toFixed(3).padStart(19)}`,
  );
}
await pool.close();
