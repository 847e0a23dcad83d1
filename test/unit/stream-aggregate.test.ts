// What a stream's chunks leave in ctx.streamed (src/gateway/stream/stream-aggregate.ts): the model of the first chunk
// naming one, the finish reasons in choice order whatever order the final chunks come in, and the assistant message
// cut to the bound its reader asks for.
import t from 'tap';
import { StreamAggregate } from '../../src/gateway/stream/stream-aggregate.ts';

const chunk = (model: string | undefined, choices: unknown[]) => ({ object: 'chat.completion.chunk', model, choices });

t.test('two choices finishing out of order: the first model, the reasons by choice index', async (t) => {
  const facts = new StreamAggregate();
  facts.add(chunk(undefined, [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }]));
  facts.add(chunk('gpt-4o-2024-08-06', [{ index: 0, delta: { content: 'a' }, finish_reason: null }]));
  facts.add(chunk('other', [{ index: 1, delta: {}, finish_reason: 'length' }]));
  facts.add(chunk('other', [{ index: 0, delta: {}, finish_reason: 'stop' }]));
  facts.add(chunk('other', []));
  t.equal(facts.model, 'gpt-4o-2024-08-06');
  t.same(facts.finishReasons(), ['stop', 'length']);
  t.equal(facts.chunks, 5);
});

t.test('a stream that never finished: no model, no reasons', async (t) => {
  const facts = new StreamAggregate();
  facts.add({ choices: [null, { delta: { content: 'a' } }] });
  facts.add({});
  t.equal(facts.model, undefined);
  t.same(facts.finishReasons(), []);
});

const delta = (d: Record<string, unknown>, finish_reason: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason }],
});

t.test('the message: content and tool calls of the first choice, cut to the bound asked for', async (t) => {
  const answer = new StreamAggregate();
  answer.add(delta({ role: 'assistant', content: '' }));
  answer.add(delta({ content: 'Hello, ' }));
  answer.add(delta({ content: 'world' }));
  answer.add(delta({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'look', arguments: '{"q":' } }] }));
  answer.add(delta({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }, 'tool_calls'));
  const call = { id: 'call_1', type: 'function', function: { name: 'look', arguments: '{"q":"x"}' } };
  t.same(answer.message(300), {
    role: 'assistant',
    content: 'Hello, world',
    tool_calls: [call],
    finish_reason: 'tool_calls',
  });
  t.same(answer.message(9), {
    role: 'assistant',
    content: 'Hello, wo',
    tool_calls: [{ ...call, function: { name: 'look', arguments: '{"q":"x"}' } }],
    finish_reason: 'tool_calls',
    truncated: true,
  });
  t.same(answer.message(3).tool_calls, [{ ...call, function: { name: 'look', arguments: '{"q":' } }]);
});
