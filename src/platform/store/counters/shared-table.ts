// A fixed-capacity hash table in a SharedArrayBuffer, for the counters store shared by the worker threads of one
// process (shared-memory-counters.ts). Every thread wraps the same buffer in its own SharedTable; one futex-style mutex
// in the buffer's header guards every read and write, and each step under it is synchronous and short. A thread
// stopped in the middle of a step (worker.terminate() interrupts running JavaScript, and no `finally` runs) leaves
// the lock held and every other thread waiting on it: let a thread that uses the table finish its step, or exit.
//
// Keys are stored as a 128-bit digest: SHA-256 truncated to 16 bytes, asked for as a 'binary' (latin1) string, so
// that no Buffer is allocated. Measured on ~60-character keys (Node 24, crypto.hash): sha256 0.6 µs and md5 0.7 µs
// with 'binary' output; both 1.6 µs with 'buffer' output (the Buffer allocation), 2.4 µs through createHash. So
// sha256, which is also the one not broken. Hashing is still most of a lookup's cost, so each SharedMemoryCounters
// keeps a small cache of the digests it made. The top two bits of the last digest word hold the entry's kind (plain,
// rate limit, average key, average field), so a sweep can tell which entries it may drop; 126 bits of digest remain.
//
// Layout: a 64-byte header (lock word, slot count, occupied slots, incremental-sweep cursor; the generation counter as
// f64 at byte 16), then `capacity` slots of 48 bytes: digest (4 x u32), expiresAt (f64 epoch ms; 0 = empty slot) and
// three f64 values. The default 131,072 slots take 6 MiB (6,291,520 bytes with the header).
//
// Open addressing with linear probing; deletion by backward shift, so there are no tombstones. An expired entry reads
// as absent and is reclaimed when a lookup probes over it, by a few slots swept on every insertion, and by a full
// sweep when the table is full. At most 3/4 of the slots hold entries (`maxEntries`), which keeps probes short. When an
// insertion finds the table full even after the sweep, rate-limit entries are evicted (down to 90% of the bound, so a
// flood of new keys does not sweep on every request), as the in-process rate limiter drops keys at its bound: a key
// that loses its state starts afresh. Counters, marks, leases and averages are never evicted: a table full of them
// throws CountersFullError, and the remedy is a larger `capacity`.

import { hash } from 'node:crypto';

/** The slot count when none is given: 131,072 slots, 6 MiB. */
export const DEFAULT_CAPACITY = 131_072;

const HEADER_BYTES = 64;
const SLOT_BYTES = 48;
const SLOT_U32 = SLOT_BYTES / 4;
const SLOT_F64 = SLOT_BYTES / 8;
const HEADER_U32 = HEADER_BYTES / 4;
const HEADER_F64 = HEADER_BYTES / 8;
/** Int32 words of the header. */
const LOCK = 0;
const CAPACITY = 1;
const USED = 2;
const CURSOR = 3;
/** F64 index of the generation counter in the header. */
const GENERATION = 2;
/** Spins on a held lock before sleeping on it. */
const SPINS = 64;
/** Slots looked at per insertion by the incremental sweep. */
const SWEEP_STEP = 4;

/** What an entry is; stored in the top two bits of the digest's last word. */
export const Kind = { plain: 0, rate: 1, averageKey: 2, averageField: 3 } as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

/** A key's 128-bit digest with its kind in the top two bits of word 3. */
export type Digest = Uint32Array;

/** Thrown when an entry cannot be added: the table is full of live entries that may not be evicted. */
export class CountersFullError extends Error {
  constructor(entries: number, capacity: number) {
    super(
      `the shared counters store is full: ${entries} live entries in ${capacity} slots (at most 3/4 in use); ` +
        'raise its capacity',
    );
    this.name = 'CountersFullError';
  }
}

export function digest(key: string, kind: Kind = Kind.plain): Digest {
  const s = hash('sha256', key, 'binary');
  const d = new Uint32Array(4);
  for (let i = 0; i < 4; i++)
    d[i] =
      s.charCodeAt(4 * i) |
      (s.charCodeAt(4 * i + 1) << 8) |
      (s.charCodeAt(4 * i + 2) << 16) |
      (s.charCodeAt(4 * i + 3) << 24);
  d[3] = (d[3] & 0x3fffffff) | (kind << 30);
  return d;
}

export class SharedTable {
  readonly capacity: number;
  /** Entries held at most (3/4 of the slots). */
  readonly maxEntries: number;
  readonly #i32: Int32Array;
  readonly #u32: Uint32Array;
  readonly #f64: Float64Array;
  readonly #mask: number;

  /** Bytes of a table of `capacity` slots. */
  static bytes(capacity: number): number {
    return HEADER_BYTES + capacity * SLOT_BYTES;
  }

  /** A zeroed table of `capacity` slots (rounded up to a power of two, at least 16). */
  static createBuffer(capacity = DEFAULT_CAPACITY): SharedArrayBuffer {
    if (!Number.isFinite(capacity) || capacity < 1) throw new Error(`bad counters capacity: ${capacity}`);
    const slots = Math.max(16, 2 ** Math.ceil(Math.log2(capacity)));
    if (slots > 2 ** 26) throw new Error(`counters capacity too large: ${capacity}`);
    const buffer = new SharedArrayBuffer(SharedTable.bytes(slots));
    new Int32Array(buffer)[CAPACITY] = slots;
    return buffer;
  }

  constructor(buffer: SharedArrayBuffer) {
    this.#i32 = new Int32Array(buffer);
    this.#u32 = new Uint32Array(buffer);
    this.#f64 = new Float64Array(buffer);
    this.capacity = this.#i32[CAPACITY];
    if (!this.capacity || buffer.byteLength !== SharedTable.bytes(this.capacity))
      throw new Error('not a shared counters buffer (make one with SharedMemoryCounters.createBuffer)');
    this.#mask = this.capacity - 1;
    this.maxEntries = (this.capacity * 3) >>> 2;
  }

  /** Runs `fn` holding the table's lock. `fn` must be synchronous and short; the lock is released if it throws. */
  withLock<T>(fn: () => T): T {
    this.#lock();
    try {
      return fn();
    } finally {
      this.#unlock();
    }
  }

  // Drepper's mutex ("Futexes are tricky", mutex 3): 0 free, 1 held, 2 held with (possible) waiters.
  #lock(): void {
    const w = this.#i32;
    let c = Atomics.compareExchange(w, LOCK, 0, 1);
    if (c === 0) return;
    for (let i = 0; i < SPINS; i++) {
      if (Atomics.load(w, LOCK) === 0) {
        c = Atomics.compareExchange(w, LOCK, 0, 1);
        if (c === 0) return;
      }
    }
    if (c !== 2) c = Atomics.exchange(w, LOCK, 2);
    while (c !== 0) {
      Atomics.wait(w, LOCK, 2);
      c = Atomics.exchange(w, LOCK, 2);
    }
  }

  #unlock(): void {
    const w = this.#i32;
    if (Atomics.sub(w, LOCK, 1) !== 1) {
      Atomics.store(w, LOCK, 0);
      Atomics.notify(w, LOCK, 1);
    }
  }

  // Everything below runs under the lock. A slot index is good until the next find, insert, remove or sweep: each
  // of them may move entries (backward shift).

  /** Occupied slots, expired entries not yet reclaimed included. */
  get used(): number {
    return this.#i32[USED];
  }

  /** A number never handed out before in this table (it tells apart two lives of one key). */
  nextGeneration(): number {
    return ++this.#f64[GENERATION];
  }

  /** The slot holding `d`, or -1. Expired entries probed over are reclaimed. */
  find(d: Digest, now: number): number {
    const u = this.#u32;
    const f = this.#f64;
    let i = d[0] & this.#mask;
    for (;;) {
      const exp = f[HEADER_F64 + i * SLOT_F64 + 2];
      if (exp === 0) return -1;
      if (exp <= now) {
        this.remove(i); // the next entry of the cluster may now be at i: look again
        continue;
      }
      const b = HEADER_U32 + i * SLOT_U32;
      if (u[b] === d[0] && u[b + 1] === d[1] && u[b + 2] === d[2] && u[b + 3] === d[3]) return i;
      i = (i + 1) & this.#mask;
    }
  }

  /**
   * Adds `d` (absent: look it up with `find` first) with values 0; returns its slot. Makes room first (`reserve`), so
   * it throws CountersFullError when the table is full of entries that may not be evicted.
   */
  insert(d: Digest, now: number, expiresAt: number): number {
    this.reserve(1, now);
    this.#sweepSome(now);
    const u = this.#u32;
    const f = this.#f64;
    let i = d[0] & this.#mask;
    for (;;) {
      const exp = f[HEADER_F64 + i * SLOT_F64 + 2];
      if (exp === 0) break;
      if (exp <= now) {
        this.remove(i);
        continue;
      }
      i = (i + 1) & this.#mask;
    }
    const b = HEADER_U32 + i * SLOT_U32;
    u[b] = d[0];
    u[b + 1] = d[1];
    u[b + 2] = d[2];
    u[b + 3] = d[3];
    const o = HEADER_F64 + i * SLOT_F64;
    f[o + 2] = expiresAt;
    f[o + 3] = 0;
    f[o + 4] = 0;
    f[o + 5] = 0;
    this.#i32[USED]++;
    return i;
  }

  /**
   * Makes room for `n` more entries: sweeps expired entries, then evicts rate-limit entries, when the table would go
   * over `maxEntries`; throws CountersFullError when that is not enough. A step that adds several entries calls it
   * first, so it changes nothing when it cannot finish.
   */
  reserve(n: number, now: number): void {
    if (this.#i32[USED] + n <= this.maxEntries) return;
    this.sweep(now);
    if (this.#i32[USED] + n <= this.maxEntries) return;
    this.#evictRates(Math.min(this.maxEntries - n, Math.floor(this.maxEntries * 0.9)));
    if (this.#i32[USED] + n > this.maxEntries) throw new CountersFullError(this.#i32[USED], this.capacity);
  }

  /** Empties slot `i`, moving later entries of its cluster back so that each stays findable from its home slot. */
  remove(i: number): void {
    const u = this.#u32;
    const f = this.#f64;
    const mask = this.#mask;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      if (f[HEADER_F64 + j * SLOT_F64 + 2] === 0) break;
      const home = u[HEADER_U32 + j * SLOT_U32] & mask;
      // The entry at j stays when its home lies cyclically in (i, j]: moving it to i would put it before its home.
      if (i <= j ? i < home && home <= j : i < home || home <= j) continue;
      u.copyWithin(HEADER_U32 + i * SLOT_U32, HEADER_U32 + j * SLOT_U32, HEADER_U32 + j * SLOT_U32 + 4);
      f.copyWithin(HEADER_F64 + i * SLOT_F64 + 2, HEADER_F64 + j * SLOT_F64 + 2, HEADER_F64 + j * SLOT_F64 + 6);
      i = j;
    }
    f[HEADER_F64 + i * SLOT_F64 + 2] = 0;
    this.#i32[USED]--;
  }

  expiresAt(slot: number): number {
    return this.#f64[HEADER_F64 + slot * SLOT_F64 + 2];
  }

  setExpiresAt(slot: number, epochMs: number): void {
    this.#f64[HEADER_F64 + slot * SLOT_F64 + 2] = epochMs;
  }

  /** Value field 0, 1 or 2 of `slot`. */
  value(slot: number, field: number): number {
    return this.#f64[HEADER_F64 + slot * SLOT_F64 + 3 + field];
  }

  setValue(slot: number, field: number, value: number): void {
    this.#f64[HEADER_F64 + slot * SLOT_F64 + 3 + field] = value;
  }

  #kind(slot: number): number {
    return this.#u32[HEADER_U32 + slot * SLOT_U32 + 3] >>> 30;
  }

  /** Whether slot `i` holds an entry to drop: expired, or an average field whose key's life is over. */
  #dead(i: number, now: number, liveAverages: Set<number> | undefined): boolean {
    const exp = this.expiresAt(i);
    if (exp === 0) return false;
    if (exp <= now) return true;
    return liveAverages !== undefined && this.#kind(i) === Kind.averageField && !liveAverages.has(this.value(i, 1));
  }

  /** Drops every expired entry, and average fields whose key is gone (they carry no expiry of their own). */
  sweep(now: number): void {
    const live = new Set<number>();
    for (let i = 0; i < this.capacity; i++) {
      const exp = this.expiresAt(i);
      if (exp > now && this.#kind(i) === Kind.averageKey) live.add(this.value(i, 1));
    }
    for (let i = 0; i < this.capacity; i++) while (this.#dead(i, now, live)) this.remove(i);
  }

  /** Looks at the next few slots and drops the expired entries among them, so that they do not pile up. */
  #sweepSome(now: number): void {
    let at = this.#i32[CURSOR];
    for (let k = 0; k < SWEEP_STEP; k++) {
      while (this.#dead(at, now, undefined)) this.remove(at);
      at = (at + 1) & this.#mask;
    }
    this.#i32[CURSOR] = at;
  }

  #evictRates(down: number): void {
    for (let i = 0; i < this.capacity && this.#i32[USED] > down; i++)
      while (this.expiresAt(i) !== 0 && this.#kind(i) === Kind.rate && this.#i32[USED] > down) this.remove(i);
  }
}
