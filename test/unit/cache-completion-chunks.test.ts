// A stored completion replayed as OpenAI stream chunks (plugins/cache/cached-completion.ts), and which answers are
// worth storing.
import t from 'tap';
import { completionChunks, isCacheable, type CachedCompletion } from '../../plugins/cache/cached-completion.ts';
import type { ChatChunk } from '../../src/plugin-api/contract.ts';

const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
const completion = (choices: CachedCompletion['choices'], extra: Partial<CachedCompletion> = {}): CachedCompletion => ({
  id: 'chatcmpl-1',
  created: 1_700_000_000,
  model: 'm',
  choices,
  usage,
  ...extra,
});

async function collect(events: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const out: ChatChunk[] = [];
  for await (const c of events) out.push(c);
  return out;
}

const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm' };

t.test('a text answer: role, content, finish reason; no usage unless asked', async (t) => {
  const chunks = await collect(
    completionChunks(
      completion([
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello there', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ]),
      false,
    ),
  );
  t.same(chunks, [
    {
      ...head,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    },
    { ...head, choices: [{ index: 0, delta: { content: 'Hello there' }, logprobs: null, finish_reason: null }] },
    { ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] },
  ]);
});

t.test('with include_usage: usage null on every chunk, then a usage chunk without choices', async (t) => {
  const chunks = await collect(
    completionChunks(
      completion([{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'length' }], {
        system_fingerprint: 'fp',
      }),
      true,
    ),
  );
  t.equal(chunks.length, 4);
  for (const c of chunks.slice(0, 3)) t.same({ usage: c.usage, fp: c.system_fingerprint }, { usage: null, fp: 'fp' });
  t.same(chunks[3], { ...head, system_fingerprint: 'fp', choices: [], usage });
  t.equal((chunks[2].choices![0] as { finish_reason: string }).finish_reason, 'length');
});

t.test('tool calls get stream indices; content null stays null; other message fields ride along', async (t) => {
  const calls = [
    { id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
    { id: 'call_2', type: 'function', function: { name: 'b', arguments: '{}' } },
  ];
  const chunks = await collect(
    completionChunks(
      completion([
        {
          index: 0,
          message: { role: 'assistant', content: null, tool_calls: calls, annotations: [] },
          finish_reason: 'tool_calls',
        },
      ]),
      false,
    ),
  );
  t.same(
    chunks.map((c) => c.choices),
    [
      [{ index: 0, delta: { role: 'assistant', content: null }, logprobs: null, finish_reason: null }],
      [
        {
          index: 0,
          delta: { annotations: [], tool_calls: calls.map((c, index) => ({ index, ...c })) },
          logprobs: null,
          finish_reason: null,
        },
      ],
      [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }],
    ],
  );
});

t.test('several choices are replayed one after the other, logprobs on the content chunk', async (t) => {
  const logprobs = { content: [{ token: 'A', logprob: -0.1, bytes: [65], top_logprobs: [] }] };
  const chunks = await collect(
    completionChunks(
      completion([
        { index: 0, message: { role: 'assistant', content: 'A' }, logprobs, finish_reason: 'stop' },
        { index: 1, message: { role: 'assistant', content: 'B' }, logprobs: null, finish_reason: 'stop' },
      ]),
      false,
    ),
  );
  t.same(
    chunks.map((c) => (c.choices![0] as { index: number }).index),
    [0, 0, 0, 1, 1, 1],
  );
  t.same((chunks[1].choices![0] as { logprobs: unknown }).logprobs, logprobs);
});

t.test('only complete answers are cacheable', async (t) => {
  const ok = { index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' };
  t.ok(isCacheable({ choices: [ok] }));
  t.ok(isCacheable({ choices: [{ ...ok, finish_reason: 'length' }] }));
  t.notOk(isCacheable({ choices: [{ ...ok, finish_reason: 'error' }] }), 'finish_reason error');
  t.notOk(isCacheable({ choices: [ok, { ...ok, finish_reason: null }] }), 'a choice without finish reason');
  t.notOk(isCacheable({ choices: [{ ...ok, message: null }] }));
  t.notOk(isCacheable({ choices: [] }));
  t.notOk(isCacheable({ error: { message: 'x' } }));
  t.notOk(isCacheable(null));
});
