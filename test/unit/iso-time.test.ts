// Trace timestamps (src/gateway/tracing/iso-time.ts) are the text Date#toISOString writes, across every boundary the
// per-minute prefix could get wrong.
import t from 'tap';
import { isoTime } from '../../src/gateway/tracing/iso-time.ts';

t.test('boundaries of seconds, minutes, days and years, before and after the epoch', async (t) => {
  const instants = [
    0,
    1,
    999,
    1_000,
    59_999,
    60_000,
    60_001,
    -1,
    -59_999,
    -60_000,
    -60_001,
    Date.UTC(2030, 11, 31, 23, 59, 59, 999),
    Date.UTC(2031, 0, 1),
    Date.UTC(2028, 1, 29, 12, 0, 5, 7),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
  ];
  for (const ms of instants) t.equal(isoTime(ms), new Date(ms).toISOString(), String(ms));
});

t.test('instants in and out of order, as a trace and its attempts give them', async (t) => {
  let seed = 7;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  const base = Date.UTC(2027, 5, 30, 23, 58, 30);
  const wrong: number[] = [];
  for (let i = 0; i < 20_000; i++) {
    const ms = base + (next() % 240_000);
    if (isoTime(ms) !== new Date(ms).toISOString()) wrong.push(ms);
  }
  t.same(wrong, []);
});

t.test('an instant with a fraction of a millisecond is written as Date writes it', async (t) => {
  t.equal(isoTime(1_700_000_000_123.6), new Date(1_700_000_000_123.6).toISOString());
  t.throws(() => isoTime(Number.NaN), RangeError, 'no time is no text, as with Date');
});
