// The cache key (plugins/cache/cache-key.ts): the canonical text, the fields left out, project and group in the key.
import t from 'tap';
import { cacheKey, canonicalText } from '../../plugins/cache/cache-key.ts';

const messages = [{ role: 'user', content: 'Hi' }];

t.test('canonical text: object keys in any order are one text, array order and structure are not', async (t) => {
  t.equal(
    canonicalText({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }),
    canonicalText({ a: { c: null, d: [3, { y: 2, z: 1 }] }, b: 1 }),
  );
  t.not(canonicalText([2, 1]), canonicalText([1, 2]));
  t.not(canonicalText({ é: 1, z: 2, Z: 3 }), canonicalText({ é: 3, z: 2, Z: 1 }));
  t.not(canonicalText(['a', 'b']), canonicalText(['ab']), 'strings are length-prefixed');
  t.not(canonicalText({ a: 's1:b' }), canonicalText({ a: 'b', s1: 'b' }), 'text inside a string is not structure');
  t.not(canonicalText([[1], 2]), canonicalText([[1, 2]]));
  t.not(canonicalText(1), canonicalText('1'));
  t.not(canonicalText(true), canonicalText('true'));
  t.not(canonicalText(null), canonicalText('null'));
  t.not(canonicalText({}), canonicalText([]));
});

t.test('lone surrogates, which UTF-8 cannot carry, keep two keys apart', async (t) => {
  const key = (content: string) => cacheKey('p1', 'demo', { messages: [{ role: 'user', content }] });
  t.not(key('x\ud800'), key('x\udfff'));
  t.not(key('x\ud800'), key('x\ufffd'));
  t.equal(key('x\ud800'), key('x\ud800'));
});

t.test('the key is project tag, group and a sha256 of the canonical request text', async (t) => {
  t.match(cacheKey('p1', 'demo', { messages }), /^\{p:p1\}:cache:demo:[0-9a-f]{64}$/);
});

t.test('key order, delivery and attribution fields do not change the key', async (t) => {
  const base = cacheKey('p1', 'demo', { model: 'demo', messages, temperature: 0 });
  const same = [
    { temperature: 0, messages: [{ content: 'Hi', role: 'user' }] },
    { messages, temperature: 0, stream: true, stream_options: { include_usage: true } },
    {
      messages,
      temperature: 0,
      user: 'u1',
      safety_identifier: 's',
      metadata: { a: '1' },
      store: true,
      service_tier: 'flex',
      prompt_cache_key: 'k',
    },
  ];
  for (const body of same) t.equal(cacheKey('p1', 'demo', body), base, JSON.stringify(body));
});

t.test('fields that change the answer, the project and the group change the key', async (t) => {
  const base = cacheKey('p1', 'demo', { messages, temperature: 0 });
  const different = [
    { messages, temperature: 0.5 },
    { messages, temperature: 0, seed: 1 },
    { messages, temperature: 0, n: 2 },
    { messages, temperature: 0, parallel_tool_calls: false },
    { messages, temperature: 0, response_format: { type: 'json_object' } },
    { messages, temperature: 0, tools: [{ type: 'function', function: { name: 'f' } }] },
    { messages: [{ role: 'user', content: 'Hi ' }], temperature: 0 },
  ];
  for (const body of different) t.not(cacheKey('p1', 'demo', body), base, JSON.stringify(body));
  t.not(cacheKey('p2', 'demo', { messages, temperature: 0 }), base, 'another project');
  t.not(cacheKey('p1', 'other', { messages, temperature: 0 }), base, 'another group');
});
