// What the trace learns of a stream from its chunks without its content (src/gateway/tracing/stream-facts.ts): the model of
// the first chunk naming one, and the finish reasons in choice order whatever order the final chunks come in.
import t from 'tap';
import { StreamFacts } from '../../src/gateway/tracing/stream-facts.ts';

const chunk = (model: string | undefined, choices: unknown[]) => ({ object: 'chat.completion.chunk', model, choices });

t.test('two choices finishing out of order: the first model, the reasons by choice index', async (t) => {
  const facts = new StreamFacts();
  facts.add(chunk(undefined, [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }]));
  facts.add(chunk('gpt-4o-2024-08-06', [{ index: 0, delta: { content: 'a' }, finish_reason: null }]));
  facts.add(chunk('other', [{ index: 1, delta: {}, finish_reason: 'length' }]));
  facts.add(chunk('other', [{ index: 0, delta: {}, finish_reason: 'stop' }]));
  facts.add(chunk('other', []));
  t.equal(facts.model, 'gpt-4o-2024-08-06');
  t.same(facts.finishReasons(), ['stop', 'length']);
});

t.test('a stream that never finished: no model, no reasons', async (t) => {
  const facts = new StreamFacts();
  facts.add({ choices: [null, { delta: { content: 'a' } }] });
  facts.add({});
  t.equal(facts.model, undefined);
  t.same(facts.finishReasons(), []);
});
