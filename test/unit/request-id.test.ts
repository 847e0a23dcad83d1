import t from 'tap';
import { timeOrderedUuid } from '../../src/gateway/server/request-id.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('a request id is a version 7 UUID carrying its millisecond', async (t) => {
  const at = Date.UTC(2026, 10, 26, 5, 0, 0, 123);
  const id = timeOrderedUuid(at);
  t.match(id, UUID_V7);
  t.equal(parseInt(id.slice(0, 8) + id.slice(9, 13), 16), at, 'the first 48 bits are the Unix time in milliseconds');
});

t.test('ids sort by time across milliseconds and differ within one', async (t) => {
  const ids = [1, 2, 3, 1000, 1_000_000, 2 ** 40].map((d) => timeOrderedUuid(1_700_000_000_000 + d));
  t.same([...ids].sort(), ids, 'later milliseconds sort later as text');
  const same = new Set(Array.from({ length: 1000 }, () => timeOrderedUuid(1_700_000_000_000)));
  t.equal(same.size, 1000, 'random bits keep ids of one millisecond apart');
  for (const id of same) t.match(id, UUID_V7);
});
