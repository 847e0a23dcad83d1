// Caller context headers (formats in docs/api.md "Caller context headers"): each parser at its limits,
// and callerContext naming every malformed header under `ignored` instead of failing.
import t from 'tap';
import { callerContext, parseMetadata, parseTags, parseTraceparent } from '../../src/gateway/tracing/caller-context.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

/** A JSON object text of exactly `bytes` UTF-8 bytes: {"k":"xxx…"}. */
function metadataOfBytes(bytes: number, fill = 'x'): string {
  const frame = Buffer.byteLength('{"k":""}');
  const fillBytes = Buffer.byteLength(fill);
  const count = Math.floor((bytes - frame) / fillBytes);
  const text = `{"k":"${fill.repeat(count)}${'x'.repeat(bytes - frame - count * fillBytes)}"}`;
  if (Buffer.byteLength(text) !== bytes) throw new Error('metadataOfBytes: wrong size');
  return text;
}

t.test('parseTags: comma list', async (t) => {
  t.same(parseTags('a,team:x'), { a: '', team: 'x' }, 'bare tag maps to "", key:value kept');
  t.same(
    parseTags(' prod , team : search , '),
    { prod: '', team: 'search' },
    'spaces around entries and : are trimmed, empty entries skipped',
  );
  t.same(parseTags('url:https://x.test'), { url: 'https://x.test' }, 'only the first : separates key and value');
  t.same(parseTags('expr:a=b'), { expr: 'a=b' }, 'an = in a value is kept');
  t.same(parseTags('a:1,a:2'), { a: '2' }, 'a repeated key keeps the last value');
  t.equal(parseTags(':x'), null, 'an empty key is refused');
  t.equal(parseTags('a, :x'), null, 'one empty key refuses the whole header');
  t.equal(parseTags('prod,team=x'), null, 'key=value is not the format: refused, not kept as a tag named team=x');
});

t.test('parseTags: JSON object', async (t) => {
  t.same(parseTags('{"team":"x","env":"prod"}'), { team: 'x', env: 'prod' });
  t.same(
    parseTags('{"n":1,"ok":true,"o":{"a":1}}'),
    { n: '1', ok: 'true', o: '{"a":1}' },
    'non-string values become their JSON text',
  );
  t.same(parseTags('{}'), {});
  t.equal(parseTags('{"team":'), null, 'broken JSON is refused, not read as a comma list');
  t.equal(parseTags('{"":"x"}'), null, 'an empty key is refused');
});

t.test('parseTags: at most 50 tags, keys up to 100 and values up to 200 characters', async (t) => {
  const list = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`).join(',');
  const obj = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, 'v'])));
  t.equal(Object.keys(parseTags(list(50)) ?? {}).length, 50, '50 listed tags are kept');
  t.equal(parseTags(list(51)), null, '51 listed tags are refused');
  t.equal(Object.keys(parseTags(obj(50)) ?? {}).length, 50, '50 tags as JSON are kept');
  t.equal(parseTags(obj(51)), null, '51 tags as JSON are refused');

  const k100 = 'k'.repeat(100);
  t.same(parseTags(`${k100}:v`), { [k100]: 'v' }, 'key of 100 characters');
  t.equal(parseTags(`${'k'.repeat(101)}:v`), null, 'key of 101 characters');
  t.same(parseTags(JSON.stringify({ [k100]: 'v' })), { [k100]: 'v' }, 'JSON key of 100 characters');
  t.equal(parseTags(JSON.stringify({ ['k'.repeat(101)]: 'v' })), null, 'JSON key of 101 characters');

  const v200 = 'v'.repeat(200);
  t.same(parseTags(`k:${v200}`), { k: v200 }, 'value of 200 characters');
  t.equal(parseTags(`k:${'v'.repeat(201)}`), null, 'value of 201 characters');
  t.equal(parseTags(JSON.stringify({ k: 'v'.repeat(201) })), null, 'JSON value of 201 characters');
});

t.test('parseMetadata: a JSON object of at most 16384 bytes', async (t) => {
  t.same(parseMetadata('{"feature":"search","n":2,"nested":{"a":[1]}}'), {
    feature: 'search',
    n: 2,
    nested: { a: [1] },
  });
  const max = metadataOfBytes(16_384);
  t.equal(Buffer.byteLength(max), 16_384);
  t.equal((parseMetadata(max) as { k: string } | null)?.k.length, 16_384 - 8, '16384 bytes are kept');
  t.equal(parseMetadata(metadataOfBytes(16_385)), null, '16385 bytes are refused');
  // The limit is in bytes: 'é' is two bytes in UTF-8.
  const wide = metadataOfBytes(16_386, 'é');
  t.ok(wide.length <= 16_384, `${wide.length} characters`);
  t.equal(parseMetadata(wide), null, 'counted in UTF-8 bytes, not characters');
  for (const bad of ['[1,2]', 'null', '"text"', '42', 'not json', '{"a":'])
    t.equal(parseMetadata(bad), null, `refused: ${bad}`);
});

t.test('parseTraceparent: W3C trace context', async (t) => {
  t.same(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-01`), { traceId: TRACE_ID, spanId: SPAN_ID });
  t.same(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-00`), { traceId: TRACE_ID, spanId: SPAN_ID }, 'unsampled flags');
  t.equal(parseTraceparent(`00-${'0'.repeat(32)}-${SPAN_ID}-01`), null, 'all-zero trace id');
  t.equal(parseTraceparent(`00-${TRACE_ID}-${'0'.repeat(16)}-01`), null, 'all-zero span id');
  t.equal(parseTraceparent(`ff-${TRACE_ID}-${SPAN_ID}-01`), null, 'version ff is invalid');
  t.same(
    parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-01`),
    { traceId: TRACE_ID, spanId: SPAN_ID },
    'a later version keeps the same four fields',
  );
  t.same(
    parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-01-future`),
    { traceId: TRACE_ID, spanId: SPAN_ID },
    'a later version may append fields after a dash',
  );
  t.equal(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-01-extra`), null, 'version 00 has exactly four fields');
  t.equal(parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-01extra`), null, 'the flags end at the end or at a dash');
  t.equal(parseTraceparent(`00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`), null, 'a 31-digit trace id');
  t.equal(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID.slice(1)}-01`), null, 'a 15-digit span id');
  t.equal(parseTraceparent(`00-${TRACE_ID.slice(0, -1)}g-${SPAN_ID}-01`), null, 'a non-hex digit');
  t.equal(parseTraceparent(`0-${TRACE_ID}-${SPAN_ID}-01`), null, 'a one-digit version');
  t.equal(parseTraceparent('garbage'), null);
});

t.test('callerContext: ids up to 200 characters, without control characters', async (t) => {
  const u200 = 'u'.repeat(200);
  const ok = callerContext({ 'svc-user-id': u200, 'svc-session-id': 's'.repeat(200) });
  t.equal(ok.userId, u200, 'user id of 200 characters');
  t.equal(ok.sessionId, 's'.repeat(200), 'session id of 200 characters');
  t.same(ok.ignored, []);

  const long = callerContext({ 'svc-user-id': 'u'.repeat(201), 'svc-session-id': 's'.repeat(201) });
  t.equal(long.userId, undefined, 'user id of 201 characters is left out');
  t.equal(long.sessionId, undefined, 'session id of 201 characters is left out');
  t.same(long.ignored, ['svc-user-id', 'svc-session-id'], 'and both are named');

  const control = callerContext({ 'svc-user-id': 'a\tb', 'svc-session-id': 'é session ✓' });
  t.equal(control.userId, undefined, 'a control character refuses the id');
  t.equal(control.sessionId, 'é session ✓', 'non-ASCII text is kept');
  t.same(control.ignored, ['svc-user-id']);

  const padded = callerContext({ 'svc-user-id': '  alice  ', 'svc-session-id': '   ' });
  t.equal(padded.userId, 'alice', 'surrounding spaces are trimmed');
  t.equal(padded.sessionId, undefined, 'a blank header counts as absent');
  t.same(padded.ignored, [], 'a blank header is not malformed');
});

t.test('callerContext: every header together, and malformed ones named without failing', async (t) => {
  const all = callerContext({
    'svc-user-id': 'user-1',
    'svc-session-id': 'session-1',
    'svc-tags': 'a,team:x',
    'svc-metadata': '{"feature":"search"}',
    traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`,
  });
  t.same(all, {
    userId: 'user-1',
    sessionId: 'session-1',
    tags: { a: '', team: 'x' },
    metadata: { feature: 'search' },
    parentTraceId: TRACE_ID,
    parentSpanId: SPAN_ID,
    ignored: [],
  });

  const none = callerContext({});
  t.same(none, { tags: {}, metadata: {}, ignored: [] }, 'no headers: empty tags and metadata');

  const bad = callerContext({
    'svc-user-id': 'user-1',
    'svc-tags': ':x',
    'svc-metadata': '[1]',
    traceparent: `00-${'0'.repeat(32)}-${SPAN_ID}-01`,
  });
  t.equal(bad.userId, 'user-1', 'a good header beside bad ones is kept');
  t.same(bad.tags, {});
  t.same(bad.metadata, {});
  t.equal(bad.parentTraceId, undefined);
  t.equal(bad.parentSpanId, undefined);
  t.same(bad.ignored, ['svc-tags', 'svc-metadata', 'traceparent']);

  const repeated = callerContext({ 'svc-user-id': ['first', 'second'] });
  t.equal(repeated.userId, 'first', 'a repeated header uses its first value');
});
