// What a stream's chunks leave in ctx.streamed (src/gateway/stream/stream-aggregate.ts): the model of the first chunk
// naming one, the finish reasons in choice order whatever order the final chunks come in, and the assistant message
// cut to the bound its reader asks for.
import t from 'tap';
import { streamedText } from '../../plugins/guardrails/detectors/checked-text.ts';
import { StreamAggregate } from '../../src/gateway/stream/stream-aggregate.ts';

const chunk = (model: string | undefined, choices: unknown[]) => ({ object: 'chat.completion.chunk', model, choices });

t.test('two choices finishing out of order: the first model, the reasons by choice index', async (t) => {
  const facts = new StreamAggregate(1_000);
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
  const facts = new StreamAggregate(1_000);
  facts.add({ choices: [null, { delta: { content: 'a' } }] });
  facts.add({});
  t.equal(facts.model, undefined);
  t.same(facts.finishReasons(), []);
});

const delta = (d: Record<string, unknown>, finish_reason: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason }],
});

t.test('the message: content and tool calls of the first choice, cut to the bound asked for', async (t) => {
  const answer = new StreamAggregate(1_000);
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

t.test(
  'texts(): each choice apart, at most the bound asked for in all, and says so; guardrails reads them as fields',
  async (t) => {
    const delta = (content: unknown, index?: number) => ({
      choices: [{ ...(index === undefined ? {} : { index }), delta: { content } }],
    });
    const fields = (s: StreamAggregate) => {
      const checked = streamedText(s.texts(10));
      return checked.text === '' ? [] : checked.locate([0, checked.text.length]).map((m) => [m.path, m.text]);
    };
    const s = new StreamAggregate(64);
    s.add(delta('hello '));
    s.add(delta(''));
    s.add(delta(null));
    s.add({ choices: [], usage: null });
    t.same(
      [fields(s), s.texts(10).chars, s.texts(10).truncated],
      [[['choices[0].message.content', 'hello ']], 6, false],
    );
    s.add({
      choices: [
        { index: 1, delta: { content: 'ab' } },
        { index: 0, delta: { content: 'w' } },
      ],
    });
    t.same(
      fields(s),
      [
        ['choices[0].message.content', 'hello w'],
        ['choices[1].message.content', 'ab'],
      ],
      'deltas go to the choice of their index',
    );
    s.add(delta('orld!'));
    t.same(
      [fields(s), s.texts(10).chars, s.texts(10).truncated],
      [
        [
          ['choices[0].message.content', 'hello wo'],
          ['choices[1].message.content', 'ab'],
        ],
        10,
        true,
      ],
      'cut at the bound',
    );
    s.add(delta('more', 1));
    t.same([s.texts(10).chars, s.texts(10).truncated], [10, true]);
    t.same(s.texts(64), {
      choices: [
        { index: 0, text: 'hello world!' },
        { index: 1, text: 'abmore' },
      ],
      chars: 18,
      truncated: false,
    });
  },
);

t.test('text is kept only as far as a reader asked: none at 0, the facts still gathered', async (t) => {
  const none = new StreamAggregate(0);
  none.add(delta({ role: 'assistant', content: 'Hello' }));
  none.add(delta({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{}' } }] }, 'stop'));
  t.same(none.message(100), {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '' } }],
    finish_reason: 'stop',
    truncated: true,
  });
  t.same(none.texts(100), { choices: [], chars: 0, truncated: true });
  t.same([none.chunks, none.finishReasons()], [2, ['stop']]);
  const some = new StreamAggregate(4);
  some.add(delta({ content: 'Hello' }));
  t.same(some.message(4), { role: 'assistant', content: 'Hell', truncated: true });
});
