import t from 'tap';
import { LatencyWindow } from '../../src/platform/telemetry/latency-window.ts';

t.test('nearest-rank percentiles over the last N samples', async (t) => {
  const w = new LatencyWindow(100);
  t.same(w.percentiles([0.5]), [null], 'empty window');
  for (let i = 1; i <= 100; i++) w.add(i);
  t.same(w.percentiles([0.5, 0.95, 0.99, 1]), [50, 95, 99, 100]);
  t.equal(w.count, 100);
  // 100 more samples push the first 100 out.
  for (let i = 1001; i <= 1100; i++) w.add(i);
  t.same(w.percentiles([0.01, 0.5]), [1001, 1050]);
  t.equal(w.count, 100);
});

t.test('a partly filled window uses only what it holds', async (t) => {
  const w = new LatencyWindow(10);
  w.add(3);
  w.add(1);
  w.add(2);
  t.same(w.percentiles([0, 0.5, 1]), [1, 2, 3]);
});
