// The cache key (plugins/cache/cache-key.ts): canonical JSON, the fields left out, project and group in the key.
import t from 'tap';
import { cacheKey, canonicalJson } from '../../plugins/cache/cache-key.ts';

const messages = [{ role: 'user', content: 'Hi' }];

t.test('canonical JSON sorts object keys at every depth and keeps array order', async (t) => {
  t.equal(
    canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }),
    '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
  );
  t.equal(canonicalJson([2, 1]), '[2,1]');
  t.equal(canonicalJson({ é: 1, z: 2, Z: 3 }), '{"Z":3,"z":2,"é":1}', 'by code point');
});

t.test('the key is project tag, group and a sha256 of the canonical request', async (t) => {
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
