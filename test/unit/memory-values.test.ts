// The cache's memory backend (src/platform/store/memory-values.ts): bounded by bytes of keys and values, least recently used out
// first, entries expire after their TTL, an entry larger than the bound is not kept.
import t from 'tap';
import { MemoryValues } from '../../src/platform/store/memory-values.ts';
import type { Clock } from '../../src/platform/clock.ts';

function clockAt(start: number): Clock & { now: () => number; advance(ms: number): void } {
  let now = start;
  return { now: () => now, sleep: async () => {}, advance: (ms) => void (now += ms) };
}

/** A 1-character key and a value making the entry exactly `bytes` long. */
const value = (bytes: number) => Buffer.alloc(bytes - 1, 'x');

t.test('holds entries up to max_bytes exactly and evicts the least recently used past it', async (t) => {
  const store = new MemoryValues(300, clockAt(0));
  await store.set('a', value(100), 1000);
  await store.set('b', value(100), 1000);
  await store.set('c', value(100), 1000);
  t.equal(store.bytes, 300, 'at the bound: all kept');
  t.ok(await store.get('a'), 'reading a makes b the least recently used');
  await store.set('d', value(100), 1000);
  t.equal(store.bytes, 300);
  t.equal(await store.get('b'), null, 'b evicted');
  for (const k of ['a', 'c', 'd']) t.ok(await store.get(k), `${k} kept`);
  await store.set('e', value(200), 1000);
  t.equal(store.bytes, 300, 'as many of the least recently used go as needed, no more');
  t.equal(await store.get('a'), null);
  t.equal(await store.get('c'), null);
  t.ok(await store.get('d'));
  t.ok(await store.get('e'));
});

t.test('an entry of max_bytes is kept; one byte more is not stored and evicts nothing', async (t) => {
  const store = new MemoryValues(300, clockAt(0));
  await store.set('a', value(300), 1000);
  t.equal(store.bytes, 300);
  await store.set('b', value(301), 1000);
  t.equal(await store.get('b'), null);
  t.ok(await store.get('a'));
});

t.test('replacing a key counts its bytes once', async (t) => {
  const store = new MemoryValues(1000, clockAt(0));
  await store.set('a', value(100), 1000);
  await store.set('a', value(50), 1000);
  t.equal(store.bytes, 50);
  t.equal((await store.get('a'))!.length, 49);
});

t.test('an entry is served until its TTL ends, then gone and its bytes freed', async (t) => {
  const clock = clockAt(1_000_000);
  const store = new MemoryValues(1000, clock);
  await store.set('a', value(100), 60_000);
  clock.advance(59_999);
  t.ok(await store.get('a'), 'one ms before expiry');
  clock.advance(1);
  t.equal(await store.get('a'), null, 'at expiry');
  t.equal(store.bytes, 0);
});

t.test('key bytes count in UTF-8', async (t) => {
  const store = new MemoryValues(1000, clockAt(0));
  await store.set('é', Buffer.alloc(10), 1000);
  t.equal(store.bytes, 12);
});
