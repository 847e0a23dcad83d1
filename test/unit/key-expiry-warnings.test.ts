// Warnings about keys of gateway.yaml that expired or expire within 7 days, against a clock that moves when told.
import t from 'tap';
import { keyExpiryWarnings } from '../../src/gateway/keys/expiry-warnings.ts';
import { fakeClock } from '../helpers/plugin.ts';

const key = (
  alias: string,
  more: { expires_at?: string; rotated_at?: string; rotation_grace_hours?: number } = {},
) => ({
  alias,
  rotation_grace_hours: 0,
  ...more,
});

t.test('a key without expiry never warns; one with expiry from 7 days ahead on, and after it', async (t) => {
  const clock = fakeClock(Date.parse('2026-12-01T12:00:00Z'));
  const keys = [key('forever'), key('demo', { expires_at: '2027-01-01T00:00:00Z' })];
  t.same(keyExpiryWarnings(keys, clock.now()), [], 'a month ahead: quiet');

  clock.set(Date.parse('2026-12-24T23:59:59Z'));
  t.same(keyExpiryWarnings(keys, clock.now()), [], 'just over 7 days ahead: quiet');

  clock.set(Date.parse('2026-12-25T00:00:00Z'));
  t.same(keyExpiryWarnings(keys, clock.now()), [
    "key 'demo' expires at 2027-01-01T00:00:00.000Z (expires_at), in 7 days: then requests with it get 401 key_expired",
  ]);

  clock.set(Date.parse('2026-12-29T06:00:00Z'));
  t.match(keyExpiryWarnings(keys, clock.now()), [/in 2 days:/]);
  clock.set(Date.parse('2026-12-31T20:00:00Z'));
  t.match(keyExpiryWarnings(keys, clock.now()), [/in 4 hours:/]);
  clock.set(Date.parse('2026-12-31T23:59:00Z'));
  t.match(keyExpiryWarnings(keys, clock.now()), [/in under an hour:/]);

  clock.set(Date.parse('2027-01-01T00:00:00Z'));
  t.same(
    keyExpiryWarnings(keys, clock.now()),
    ["key 'demo' expired at 2027-01-01T00:00:00.000Z (expires_at): requests with it get 401 key_expired"],
    'at its expiry the key is refused (as the auth plugin does), so it is expired',
  );
  clock.set(Date.parse('2027-06-01T00:00:00Z'));
  t.equal(keyExpiryWarnings(keys, clock.now()).length, 1, 'and stays so');
});

t.test("a rotated key's grace window ends before its expiry: that end is what is announced", async (t) => {
  const now = Date.parse('2026-12-01T00:00:00Z');
  const rotated = key('old', {
    expires_at: '2027-06-01T00:00:00Z',
    rotated_at: '2026-11-30T00:00:00Z',
    rotation_grace_hours: 48,
  });
  t.same(keyExpiryWarnings([rotated], now), [
    "key 'old' expires at 2026-12-02T00:00:00.000Z (rotated_at), in 1 day: then requests with it get 401 key_expired",
  ]);
  t.same(keyExpiryWarnings([{ ...rotated, rotation_grace_hours: 0 }], now), [
    "key 'old' expired at 2026-11-30T00:00:00.000Z (rotated_at): requests with it get 401 key_expired",
  ]);
});
