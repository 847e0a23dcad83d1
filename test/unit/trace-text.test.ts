// The trace writer's JSON text of a trace item (src/gateway/tracing/trace-text.ts): the journal line parses back into the
// item, the batch text holds the batch's rows in order, and both are text jsonb accepts.
import t from 'tap';
import type { TraceItem } from '../../src/gateway/tracing/trace-item.ts';
import { batchJson, journalLine } from '../../src/gateway/tracing/trace-text.ts';

function item(id: string, attempts: number, content = `question ${id}`): TraceItem {
  return {
    trace: {
      projectId: 'p1',
      id,
      status: 'completed',
      startTime: '2030-01-01T00:00:00.000Z',
      input: [{ role: 'user', content }],
      metadata: { 'gateway.key': 'k' },
      userId: null,
      source: 'gateway',
    },
    observations: Array.from({ length: attempts }, (_, i) => ({
      projectId: 'p1',
      id: `${id}.${i + 1}`,
      traceId: id,
      type: 'GENERATION',
      startTime: '2030-01-01T00:00:00.000Z',
      attributes: { 'gateway.outcome': 'ok' },
    })),
  };
}

t.test('the journal line parses back into the item', async (t) => {
  const a = item('a', 2, 'line\nbreak "quoted" back\\slash é 😀');
  t.same(JSON.parse(journalLine(a)), a);
  t.equal(journalLine(a), journalLine(a), 'the same text each time');
});

t.test('the batch text holds the rows of every item in order, with or without observations', async (t) => {
  const batch = [item('a', 1), item('b', 0), item('c', 2)];
  const json = batchJson(batch);
  t.same(
    JSON.parse(json.traces),
    batch.map((i) => i.trace),
  );
  t.same(
    JSON.parse(json.observations),
    batch.flatMap((i) => i.observations),
  );
  t.same(batchJson([item('d', 0)]), { traces: JSON.stringify([item('d', 0).trace]), observations: '[]' });
});

t.test('U+0000 and lone surrogates are made storable in the line and the batch text alike', async (t) => {
  const odd = item('odd', 1, 'a\u0000b \ud83d c\udc00');
  const line = JSON.parse(journalLine(odd)) as TraceItem;
  t.same(line.trace.input, [{ role: 'user', content: 'ab \ufffd c\ufffd' }]);
  t.same(JSON.parse(batchJson([odd]).traces)[0], line.trace);
});
