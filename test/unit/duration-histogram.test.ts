import { Histogram, Registry } from 'prom-client';
import t from 'tap';
import { DurationHistogram } from '../../src/platform/telemetry/duration-histogram.ts';

const observedMs = [0.5, 1, 3, 10, 0.02];

t.test('Prometheus text exactly as prom-client writes the same observations in seconds', async (t) => {
  const ours = new Registry();
  const h = new DurationHistogram(ours, { name: 'x_seconds', help: 'a duration', boundsMs: [1, 5] });
  const theirs = new Registry();
  const reference = new Histogram({
    name: 'x_seconds',
    help: 'a duration',
    buckets: [0.001, 0.005],
    registers: [theirs],
  });
  for (const ms of observedMs) {
    h.observe(ms);
    reference.observe(ms / 1000);
  }
  const text = await ours.metrics();
  t.equal(text, await theirs.metrics());
  t.match(text, /^x_seconds_bucket\{le="0\.001"\} 3$/m, 'a value on a bound falls in that bucket (le)');
  t.match(text, /^x_seconds_bucket\{le="\+Inf"\} 5$/m);
  t.match(text, /^x_seconds_count 5$/m);
});

t.test('JSON: cumulative buckets in order of their upper bound in ms, count and sum', async (t) => {
  const h = new DurationHistogram(new Registry(), { name: 'y_seconds', help: 'a duration', boundsMs: [0.5, 1, 5] });
  const empty = [
    { le: 0.5, count: 0 },
    { le: 1, count: 0 },
    { le: 5, count: 0 },
    { le: '+Inf', count: 0 },
  ];
  t.strictSame(h.json(), { count: 0, sum: 0, buckets: empty }, 'empty');
  for (const ms of observedMs) h.observe(ms);
  const buckets = [
    { le: 0.5, count: 2 },
    { le: 1, count: 3 },
    { le: 5, count: 4 },
    { le: '+Inf', count: 5 },
  ];
  t.strictSame(h.json(), { count: 5, sum: 14.52, buckets });
  t.equal(JSON.stringify(h.json().buckets.map((b) => b.le)), '[0.5,1,5,"+Inf"]', 'in order once serialised');
});
