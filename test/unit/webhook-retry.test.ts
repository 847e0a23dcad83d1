// Backoff between delivery attempts: exponential steps from retry_base_ms, capped at retry_max_ms, full jitter.
import t from 'tap';
import { retryDelayMs } from '../../src/observability/webhooks/delivery-loop.ts';

const settings = { retry_base_ms: 1_000, retry_max_ms: 10_000 };

t.test('full jitter under a capped exponential step', async (t) => {
  t.same(
    [1, 2, 3, 4, 5, 40].map((n) => retryDelayMs(n, settings, () => 0.999_999)),
    [999, 1_999, 3_999, 7_999, 9_999, 9_999],
  );
  t.equal(
    retryDelayMs(3, settings, () => 0),
    0,
    'the jitter reaches zero',
  );
  t.equal(
    retryDelayMs(3, settings, () => 0.5),
    2_000,
  );
});
