// POST /api/public/otel/v1/traces (docs/public-api.md "OpenTelemetry intake") over raw HTTP: JSON and protobuf
// bodies, gzip and its size bound, every refusal, the ingestion-version header, key kinds, and the stored rows through
// GET /api/public/traces/{id}. Then the usage normalisation and type mapping on their own. Both backends.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import {
  DECOMPRESSED_CEILING,
  DECOMPRESSED_FLOOR,
  INTAKE_BODY_LIMIT,
  MAX_COMPRESSION_RATIO,
} from '../../admin/public-api/intake-limits.ts';
import { genAiUsageOf } from '../../src/observability/ingestion/otel/gen-ai-usage.ts';
import { observationBodyOf } from '../../src/observability/ingestion/otel/observation-fields.ts';
import { observationTypeOf } from '../../src/observability/ingestion/otel/observation-type.ts';
import { encodeResponse } from '../../src/observability/ingestion/otel/otlp-decode.ts';
import type { OtelSpan } from '../../src/observability/ingestion/otel/otlp-spans.ts';
import { explicitTraceFields } from '../../src/observability/ingestion/otel/trace-fields.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { basicAuth as auth, callAdmin as call, startPublicApiService } from '../helpers/public-api.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const PATH = '/api/public/otel/v1/traces';
const otlp = createRequire(import.meta.url)('otlp-transformer-protobufjs/build/src/generated/root.js').opentelemetry
  .proto.collector.trace.v1;

const T0 = Date.parse('2026-05-01T12:00:00.000Z');
const nanos = (ms: number) => `${BigInt(T0 + ms) * 1_000_000n}`;
const at = (ms: number) => new Date(T0 + ms).toISOString();
const str = (key: string, stringValue: string) => ({ key, value: { stringValue } });
const int = (key: string, intValue: number) => ({ key, value: { intValue } });

let counter = 0;
const traceIdHex = () => `${(++counter).toString(16).padStart(8, '0')}${'ab'.repeat(12)}`;
/** Span ids are unique across traces (observation ids are); `n` tells the spans of one request apart. */
const spanIdOf = (traceId: string, n: number) => `${traceId.slice(0, 8)}0000000${n}`;

/** An OTLP/JSON request: a root span and a child chat generation with gen_ai usage, on one trace. */
function chatRequest(traceId: string) {
  const [root, gen, tool] = [1, 2, 3].map((n) => spanIdOf(traceId, n));
  return {
    resourceSpans: [
      {
        resource: {
          attributes: [
            str('service.name', 'bot'),
            str('service.version', '1.2.3'),
            str('deployment.environment.name', 'Staging'),
          ],
        },
        scopeSpans: [
          {
            scope: { name: 'my-app', version: '0.1' },
            spans: [
              {
                traceId,
                spanId: root,
                name: 'handle',
                kind: 1,
                startTimeUnixNano: nanos(0),
                endTimeUnixNano: nanos(500),
                attributes: [
                  str('user.id', 'u-1'),
                  str('session.id', 's-1'),
                  str('langfuse.trace.tags', '["a","b"]'),
                  str('langfuse.trace.metadata.team', 'x'),
                ],
              },
              {
                traceId,
                spanId: gen,
                parentSpanId: root,
                name: 'chat gpt-x',
                startTimeUnixNano: nanos(10),
                endTimeUnixNano: nanos(400),
                attributes: [
                  str('gen_ai.operation.name', 'chat'),
                  str('gen_ai.request.model', 'gpt-x'),
                  str('gen_ai.response.model', 'gpt-x-2026'),
                  { key: 'gen_ai.request.temperature', value: { doubleValue: 0.5 } },
                  int('gen_ai.usage.input_tokens', 100),
                  int('gen_ai.usage.output_tokens', 40),
                  int('gen_ai.usage.cache_read_input_tokens', 30),
                  int('gen_ai.usage.reasoning_tokens', 10),
                  str('gen_ai.input.messages', '[{"role":"user","content":"hi"}]'),
                  str('gen_ai.output.messages', '[{"role":"assistant","content":"hello"}]'),
                ],
              },
              {
                traceId,
                spanId: tool,
                parentSpanId: root,
                name: 'lookup',
                startTimeUnixNano: nanos(20),
                endTimeUnixNano: nanos(30),
                status: { code: 2, message: 'boom' },
                attributes: [str('gen_ai.tool.name', 'search')],
              },
            ],
          },
        ],
      },
    ],
  };
}

/** The same request as protobuf bytes (ids as bytes), encoded with OTel's generated definitions. */
function toProtobuf(request: ReturnType<typeof chatRequest>): Buffer {
  const copy = structuredClone(request) as any;
  for (const rs of copy.resourceSpans)
    for (const ss of rs.scopeSpans)
      for (const span of ss.spans) {
        for (const k of ['traceId', 'spanId', 'parentSpanId']) if (span[k]) span[k] = Buffer.from(span[k], 'hex');
      }
  return Buffer.from(otlp.ExportTraceServiceRequest.encode(otlp.ExportTraceServiceRequest.fromObject(copy)).finish());
}

for (const backend of STORE_BACKENDS) {
  t.test(`OTel intake on ${backend}`, async (t) => {
    const { s, db, key, ingestKey, orgKey } = await startPublicApiService(t, backend);
    const post = async (body: string | Buffer, headers: Record<string, string>, authorization = auth(key)) => {
      const res = await fetch(`${s.adminUrl}${PATH}`, {
        method: 'POST',
        headers: { authorization, ...headers },
        body: typeof body === 'string' ? body : new Uint8Array(body),
      });
      return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
    };
    const postJson = async (body: unknown, headers: Record<string, string> = {}, authorization = auth(key)) => {
      const r = await post(
        typeof body === 'string' ? body : JSON.stringify(body),
        { 'content-type': 'application/json', ...headers },
        authorization,
      );
      return { ...r, body: r.bytes.length > 0 ? JSON.parse(r.bytes.toString()) : undefined };
    };
    const readTrace = async (id: string) => (await call(s, 'GET', `/api/public/traces/${id}`, auth(key))).body;

    t.test('JSON: spans become a trace with a generation, a tool and exclusive usage', async (t) => {
      const traceId = traceIdHex();
      const r = await postJson(chatRequest(traceId));
      t.equal(r.status, 200);
      t.same(r.body, {});
      const trace = await readTrace(traceId);
      t.match(trace, {
        id: traceId,
        name: 'handle',
        userId: 'u-1',
        sessionId: 's-1',
        version: '1.2.3',
        environment: 'staging',
        timestamp: at(0),
        metadata: { team: 'x' },
      });
      t.same([...trace.tags].sort(), ['a', 'b']);
      const byId = Object.fromEntries(trace.observations.map((o: any) => [o.id, o]));
      t.match(byId[spanIdOf(traceId, 1)], {
        type: 'SPAN',
        name: 'handle',
        parentObservationId: null,
        startTime: at(0),
        endTime: at(500),
      });
      const gen = byId[spanIdOf(traceId, 2)];
      t.match(gen, {
        type: 'GENERATION',
        name: 'chat gpt-x',
        parentObservationId: spanIdOf(traceId, 1),
        model: 'gpt-x-2026',
        modelParameters: { temperature: 0.5 },
        input: [{ role: 'user', content: 'hi' }],
        output: [{ role: 'assistant', content: 'hello' }],
        environment: 'staging',
        version: '1.2.3',
      });
      t.same(
        gen.usageDetails,
        { input: 70, input_cached_tokens: 30, output: 30, output_reasoning_tokens: 10, total: 140 },
        'inclusive OTel counts as exclusive buckets',
      );
      t.match(byId[spanIdOf(traceId, 3)], { type: 'TOOL', name: 'search', level: 'ERROR', statusMessage: 'boom' });
      t.match(gen.metadata, {
        resourceAttributes: { 'service.name': 'bot' },
        scope: { name: 'my-app' },
        attributes: { 'gen_ai.operation.name': 'chat' },
      });
      t.match(await getTrace(db, 'default', traceId), { status: 'error', tokens: 140 });
    });

    t.test('protobuf: the same spans, answered with an empty ExportTraceServiceResponse', async (t) => {
      const traceId = traceIdHex();
      const r = await post(toProtobuf(chatRequest(traceId)), { 'content-type': 'application/x-protobuf' });
      t.equal(r.status, 200);
      t.equal(r.type, 'application/x-protobuf');
      t.equal(r.bytes.length, 0, 'an empty message encodes to no bytes');
      const trace = await readTrace(traceId);
      t.match(trace, { id: traceId, name: 'handle', userId: 'u-1', environment: 'staging' });
      t.same(
        trace.observations.map((o: any) => o.id).sort(),
        [1, 2, 3].map((n) => spanIdOf(traceId, n)),
        'byte ids stored as hex',
      );
      t.same(trace.observations.find((o: any) => o.type === 'GENERATION').usageDetails, {
        input: 70,
        input_cached_tokens: 30,
        output: 30,
        output_reasoning_tokens: 10,
        total: 140,
      });
    });

    t.test('gzip, for both encodings', async (t) => {
      const jsonTrace = traceIdHex();
      const j = await post(gzipSync(JSON.stringify(chatRequest(jsonTrace))), {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      });
      t.equal(j.status, 200);
      const protoTrace = traceIdHex();
      const p = await post(gzipSync(toProtobuf(chatRequest(protoTrace))), {
        'content-type': 'application/x-protobuf; charset=binary',
        'content-encoding': 'gzip',
      });
      t.equal(p.status, 200);
      t.equal((await readTrace(jsonTrace)).observations.length, 3);
      t.equal((await readTrace(protoTrace)).observations.length, 3);
    });

    t.test('the body is bounded: 64 MiB as sent and decompressed, 200:1 past 4.5 MB decompressed', async (t) => {
      t.same([INTAKE_BODY_LIMIT, DECOMPRESSED_CEILING, DECOMPRESSED_FLOOR], [67_108_864, 67_108_864, 4_718_592]);
      const gzipped = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
      /** A JSON body: `pad` as its padding, else exactly `size` bytes padded with x (compressing past 1000:1). */
      const bodyOf = (size: number, pad?: string) => {
        const shell = JSON.stringify({ resourceSpans: [], pad: '' });
        return shell.replace('"pad":""', `"pad":"${pad ?? 'x'.repeat(size - shell.length)}"`);
      };
      const atFloor = gzipSync(bodyOf(DECOMPRESSED_FLOOR));
      t.ok(atFloor.length * MAX_COMPRESSION_RATIO < DECOMPRESSED_FLOOR, 'compressed past 200:1');
      t.equal((await post(atFloor, gzipped)).status, 200, 'any body may inflate to 4.5 MB');
      const overFloor = await post(gzipSync(bodyOf(DECOMPRESSED_FLOOR + 1)), gzipped);
      t.equal(overFloor.status, 413, 'one byte more, at that ratio');
      t.match(JSON.parse(overFloor.bytes.toString()), {
        error: 'PayloadTooLargeError',
        message: /decompressed body is over 4718592 bytes/,
      });
      // Text of a real trace compresses a few times, not hundreds: 12 MB of it pass.
      const text = randomBytes(9_000_000).toString('base64');
      const large = gzipSync(bodyOf(0, text));
      t.ok(large.length > DECOMPRESSED_FLOOR, `${large.length} bytes as sent, over the former 4.5 MB limit`);
      t.equal((await post(large, gzipped)).status, 200, 'inflating to 12 MB');
      const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
      t.ok(bomb.length < 100_000, `a ${bomb.length}-byte body that inflates to 64 MiB`);
      const refusedBomb = await post(bomb, gzipped);
      t.equal(refusedBomb.status, 413, 'a gzip bomb stops at 200 times its size');
      t.match(JSON.parse(refusedBomb.bytes.toString()).message, `over ${bomb.length * MAX_COMPRESSION_RATIO} bytes`);
      // A block repeated within gzip's 32 KB window compresses about 130:1, as an agent resending its context does.
      const block = randomBytes(20_000).toString('base64');
      const pastCeiling = gzipSync(block.repeat(Math.ceil((DECOMPRESSED_CEILING + 1) / block.length)));
      t.ok(pastCeiling.length * MAX_COMPRESSION_RATIO > DECOMPRESSED_CEILING, 'under 200:1');
      t.equal((await post(pastCeiling, gzipped)).status, 413, 'inflating past 64 MiB');
      t.equal(
        (await post(Buffer.alloc(INTAKE_BODY_LIMIT + 1, 0x20), { 'content-type': 'application/json' })).status,
        413,
        'a plain body one byte over 64 MiB',
      );
    });

    t.test('refusals', async (t) => {
      const bad = async (body: string | Buffer, headers: Record<string, string>, error: string | RegExp) => {
        const r = await post(body, headers);
        t.equal(r.status, 400, `400 for ${String(error)}`);
        t.match(JSON.parse(r.bytes.toString()), { error });
      };
      await bad('{}', { 'content-type': 'text/plain' }, 'Invalid content type');
      await bad(Buffer.from('{}'), {}, 'Invalid content type'); // bytes: fetch sends no Content-Type
      await bad(
        Buffer.from('not gzip'),
        { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        'Failed to parse OTel JSON Trace',
      );
      await bad('{"resourceSpans": [', { 'content-type': 'application/json' }, 'Failed to parse OTel JSON Trace');
      const proto = toProtobuf(chatRequest(traceIdHex()));
      await bad(
        proto.subarray(0, proto.length - 7),
        { 'content-type': 'application/x-protobuf' },
        'Failed to parse OTel Protobuf Trace',
      );
      await bad('{}', { 'content-type': 'application/json', 'content-encoding': 'br' }, 'Unsupported content encoding');

      const traceId = traceIdHex();
      const noSpanId = chatRequest(traceId);
      delete (noSpanId.resourceSpans[0].scopeSpans[0].spans[1] as { spanId?: string }).spanId;
      await bad(JSON.stringify(noSpanId), { 'content-type': 'application/json' }, /spans\[1\] has no valid spanId/);
      t.equal(
        (await call(s, 'GET', `/api/public/traces/${traceId}`, auth(key))).status,
        404,
        'the whole batch is refused',
      );
      const badTraceId = chatRequest('xyz');
      await bad(JSON.stringify(badTraceId), { 'content-type': 'application/json' }, /has no valid traceId/);
      await bad(
        JSON.stringify({ resourceSpans: [{ scopeSpans: { spans: [] } }] }),
        { 'content-type': 'application/json' },
        /resourceSpans\[0\]\.scopeSpans must be an array/,
      );
      await bad(
        JSON.stringify({
          resourceSpans: [
            { scopeSpans: [{ spans: [{ traceId: traceIdHex(), spanId: '1111111111111111', attributes: {} }] }] },
          ],
        }),
        { 'content-type': 'application/json' },
        /attributes must be an array/,
      );
      // An OTLP logs export sent here by mistake.
      await bad(
        JSON.stringify({ resourceSpans: 'logs' }),
        { 'content-type': 'application/json' },
        /resourceSpans must be an array/,
      );
    });

    t.test('attribute values nest at most 32 levels; a __proto__ key is an ordinary key', async (t) => {
      /** `levels` AnyValues as JSON text, each inside the one before, a string innermost (JSON.stringify cannot write thousands deep). */
      const nested = (levels: number, kind: 'arrayValue' | 'kvlistValue') => {
        const [open, close] =
          kind === 'arrayValue'
            ? ['{"arrayValue":{"values":[', ']}}']
            : ['{"kvlistValue":{"values":[{"key":"k","value":', '}]}}'];
        return `${open.repeat(levels - 1)}{"stringValue":"leaf"}${close.repeat(levels - 1)}`;
      };
      const plain = (levels: number, kind: 'arrayValue' | 'kvlistValue') => {
        let v: unknown = 'leaf';
        for (let i = 1; i < levels; i++) v = kind === 'arrayValue' ? [v] : { k: v };
        return v;
      };
      /** A request with one span; attribute values given as JSON text. */
      const requestWith = (
        traceId: string,
        attributes: [string, string][],
        resourceAttributes: [string, string][] = [],
      ) => {
        const list = (attrs: [string, string][]) =>
          `[${attrs.map(([k, v]) => `{"key":${JSON.stringify(k)},"value":${v}}`).join(',')}]`;
        const span = JSON.stringify({
          traceId,
          spanId: spanIdOf(traceId, 1),
          name: 'deep',
          startTimeUnixNano: nanos(0),
        });
        return `{"resourceSpans":[{"resource":{"attributes":${list(resourceAttributes)}},"scopeSpans":[{"scope":{"name":"other"},"spans":[${span.slice(
          0,
          -1,
        )},"attributes":${list(attributes)}}]}]}]}`;
      };
      const tooDeep = {
        error: 'Invalid OTel trace: an attribute value is nested more than 32 levels deep',
        message: /nested more than 32 levels deep/,
      };

      const traceId = traceIdHex();
      const ok = await postJson(
        requestWith(traceId, [
          ['arr', nested(32, 'arrayValue')],
          ['kv', nested(32, 'kvlistValue')],
        ]),
      );
      t.equal(ok.status, 200, '32 levels are taken');
      const attributes = (await readTrace(traceId)).observations[0].metadata.attributes;
      t.same(attributes, { arr: plain(32, 'arrayValue'), kv: plain(32, 'kvlistValue') });

      for (const kind of ['arrayValue', 'kvlistValue'] as const) {
        for (const levels of [33, 5_000, 50_000]) {
          const id = traceIdHex();
          const r = await postJson(requestWith(id, [['deep', nested(levels, kind)]]));
          t.equal(r.status, 400, `${kind} ${levels} levels deep`);
          t.match(r.body, tooDeep);
          t.equal((await call(s, 'GET', `/api/public/traces/${id}`, auth(key))).status, 404, 'nothing stored');
        }
      }
      const deepResource = await postJson(requestWith(traceIdHex(), [], [['deep', nested(40, 'kvlistValue')]]));
      t.equal(deepResource.status, 400, 'resource attributes too');
      // An AnyValue of no known shape is kept as JSON text; JSON nested 100,000 deep cannot be written back as text.
      const unknown = await postJson(
        requestWith(traceIdHex(), [['odd', `{"other":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`]]),
      );
      t.equal(unknown.status, 400);
      t.match(unknown.body, tooDeep);

      const protoKeyTrace = traceIdHex();
      const kvlist = (entries: Record<string, string>) =>
        JSON.stringify({ kvlistValue: { values: Object.entries(entries).map(([k, v]) => str(k, v)) } });
      const proto = await postJson(
        requestWith(
          protoKeyTrace,
          [
            ['__proto__', kvlist({ polluted: 'span' })],
            ['other', '{"stringValue":"x"}'],
          ],
          [
            ['__proto__', kvlist({ polluted: 'resource' })],
            ['nested', `{"kvlistValue":{"values":[{"key":"__proto__","value":${kvlist({ polluted: 'inner' })}}]}}`],
          ],
        ),
      );
      t.equal(proto.status, 200);
      const metadata = (await readTrace(protoKeyTrace)).observations[0].metadata;
      t.ok(Object.hasOwn(metadata.attributes, '__proto__'), 'kept as a key of the span attributes');
      const sorted = (o: object) => JSON.stringify(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))); // jsonb reorders keys
      t.equal(sorted(metadata.attributes), '[["__proto__",{"polluted":"span"}],["other","x"]]');
      t.equal(
        sorted(metadata.resourceAttributes),
        '[["__proto__",{"polluted":"resource"}],["nested",{"__proto__":{"polluted":"inner"}}]]',
      );
    });

    t.test(
      "experiment spans (the Langfuse SDKs' experiment API) become dataset run items linking each item to its trace",
      async (t) => {
        const call2 = (method: string, path: string, body?: unknown) =>
          call(s, method, `/api/public${path}`, auth(key), body);
        const dataset = (await call2('POST', '/v2/datasets', { name: 'exp-set' })).body;
        for (const id of ['exp-item-1', 'exp-item-2'])
          await call2('POST', '/dataset-items', { datasetName: 'exp-set', id, input: id });
        /** One item's execution: a root span and the item's task span (the item root), which carry the experiment keys. */
        const itemSpans = (
          traceId: string,
          itemId: string,
          experimentId = 'e0e0e0e0e0e0e0e0',
          runName = 'nightly',
          datasetId = dataset.id,
        ) => {
          const [root, task] = [1, 2].map((n) => spanIdOf(traceId, n));
          const experiment = [
            str('langfuse.experiment.id', experimentId),
            str('langfuse.experiment.name', runName),
            str('langfuse.experiment.dataset.id', datasetId),
            str('langfuse.experiment.item.id', itemId),
            str('langfuse.experiment.item.root_observation_id', task),
          ];
          return [
            {
              traceId,
              spanId: root,
              name: 'experiment-item-run',
              startTimeUnixNano: nanos(0),
              endTimeUnixNano: nanos(9),
              attributes: experiment,
            },
            {
              traceId,
              spanId: task,
              parentSpanId: root,
              name: 'experiment-item-task',
              startTimeUnixNano: nanos(1),
              endTimeUnixNano: nanos(8),
              attributes: [
                ...experiment,
                str('langfuse.experiment.description', 'prompt v2'),
                str('langfuse.experiment.metadata', '{"model":"m1"}'),
              ],
            },
          ];
        };
        const send = async (spans: unknown[]) =>
          (await postJson({ resourceSpans: [{ scopeSpans: [{ scope: { name: 'langfuse-sdk' }, spans }] }] })).status;
        const [trace1, trace2] = [traceIdHex(), traceIdHex()];
        t.equal(await send([...itemSpans(trace1, 'exp-item-1'), ...itemSpans(trace2, 'exp-item-2')]), 200);
        t.equal(await send(itemSpans(trace1, 'exp-item-1')), 200, 'a span sent again');

        const run = (await call2('GET', '/datasets/exp-set/runs/nightly')).body;
        t.match(run, {
          id: 'e0e0e0e0e0e0e0e0',
          name: 'nightly',
          description: 'prompt v2',
          metadata: { model: 'm1' },
          datasetId: dataset.id,
        });
        t.same(
          run.datasetRunItems.map((i: any) => [i.datasetItemId, i.traceId, i.observationId]).sort(),
          [
            ['exp-item-1', trace1, spanIdOf(trace1, 2)],
            ['exp-item-2', trace2, spanIdOf(trace2, 2)],
          ],
          'one run item per item root span, linked once',
        );

        // The same experiment id under another run name: the id is taken, so that run gets its own.
        const trace3 = traceIdHex();
        t.equal(await send(itemSpans(trace3, 'exp-item-1', 'e0e0e0e0e0e0e0e0', 'other-run')), 200);
        const other = (await call2('GET', '/datasets/exp-set/runs/other-run')).body;
        t.not(other.id, run.id);
        t.same(
          other.datasetRunItems.map((i: any) => i.traceId),
          [trace3],
        );

        // An item of no stored dataset, or a dataset id of another dataset: the spans are stored, nothing is linked.
        const [trace4, trace5] = [traceIdHex(), traceIdHex()];
        t.equal(
          await send([
            ...itemSpans(trace4, 'no-such-item'),
            ...itemSpans(trace5, 'exp-item-1', 'e1e1e1e1e1e1e1e1', 'nightly-2', 'no-such-dataset'),
          ]),
          200,
        );
        t.equal((await readTrace(trace4)).observations.length, 2);
        t.equal((await readTrace(trace5)).observations.length, 2);
        t.same(
          (
            await db.query('SELECT trace_id FROM dataset_run_items WHERE trace_id = ANY($1::text[])', [
              [trace4, trace5],
            ])
          ).rows,
          [],
        );
        t.equal((await call2('GET', '/datasets/exp-set/runs/nightly-2')).status, 404);
      },
    );

    t.test('nothing to store answers 200 {}', async (t) => {
      t.same(await postJson({ resourceSpans: [] }), {
        status: 200,
        type: 'application/json; charset=utf-8',
        bytes: Buffer.from('{}'),
        body: {},
      });
      t.same((await postJson({})).body, {});
      t.same((await postJson({ resourceSpans: [{ scopeSpans: [] }] })).body, {});
      const p = await post(Buffer.alloc(0), { 'content-type': 'application/x-protobuf' });
      t.equal(p.status, 200);
      t.equal(p.bytes.length, 0);
    });

    t.test('other methods are 405', async (t) => {
      const r = await call(s, 'GET', PATH, auth(key));
      t.equal(r.status, 405);
      t.equal(r.body.error, 'MethodNotAllowedError');
    });

    t.test('x-langfuse-ingestion-version', async (t) => {
      t.equal((await postJson({ resourceSpans: [] }, { 'x-langfuse-ingestion-version': '4' })).status, 200);
      for (const v of ['5', 'v4']) {
        const r = await postJson({ resourceSpans: [] }, { 'x-langfuse-ingestion-version': v });
        t.equal(r.status, 400);
        t.equal(r.body.error, `Unsupported x-langfuse-ingestion-version "${v}". Maximum supported: "4".`);
      }
    });

    t.test('key kinds', async (t) => {
      const none = await fetch(`${s.adminUrl}${PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      t.equal(none.status, 401);
      t.match(await none.json(), { message: 'No authorization header' });
      const wrong = await postJson({}, {}, auth({ publicKey: key.publicKey, secretKey: 'sk-wrong' }));
      t.equal(wrong.status, 401);
      t.match(wrong.body, { message: /Invalid credentials/ });
      const org = await postJson({}, {}, auth(orgKey));
      t.equal(org.status, 401);
      t.match(org.body, { message: 'Invalid API key. Are you using an organization key?', error: 'UnauthorizedError' });
      const traceId = traceIdHex();
      t.equal(
        (await postJson(chatRequest(traceId), {}, auth(ingestKey))).status,
        200,
        'an ingestion-only project may send spans',
      );
      t.ok(await getTrace(db, 'ingest', traceId));
    });

    t.test(
      'a span the ingestion rules refuse is reported as OTLP partial success; the others are stored',
      async (t) => {
        const traceId = traceIdHex();
        const [root, child, late] = [1, 2, 3].map((n) => spanIdOf(traceId, n));
        const request = {
          resourceSpans: [
            {
              scopeSpans: [
                {
                  spans: [
                    { traceId, spanId: root, name: 'ok', startTimeUnixNano: nanos(0) },
                    {
                      traceId,
                      spanId: child,
                      parentSpanId: root,
                      name: 'x',
                      startTimeUnixNano: nanos(1),
                      attributes: [str('user.id', 'u'), { key: 'langfuse.trace.public', value: { boolValue: true } }],
                    },
                    // Year 275760: a valid Date whose ISO form has a six-digit year, which the ingestion rules refuse.
                    {
                      traceId,
                      spanId: late,
                      parentSpanId: root,
                      name: 'late',
                      startTimeUnixNano: nanos(2),
                      endTimeUnixNano: '8640000000000000000000',
                    },
                  ],
                },
              ],
            },
          ],
        };
        const r = await postJson(request);
        t.equal(r.status, 200);
        t.match(r.body, {
          partialSuccess: {
            rejectedSpans: 1,
            errorMessage: new RegExp(`span ${late}: Invalid request data: body.endTime`),
          },
        });
        const trace = await readTrace(traceId);
        t.match(trace, { userId: 'u', public: true });
        t.same(trace.observations.map((o: any) => o.id).sort(), [root, child]);
      },
    );

    t.test("a root span's own name, input and output never override trace fields a span sets explicitly", async (t) => {
      // Root and child start in the same millisecond; the exporter sends the child first (it ended first), so the
      // root's events come last in the batch. Several pairs in one request, as a busy exporter batches them.
      const pairs = [1, 2, 3, 4, 5].map(() => traceIdHex());
      const spans = pairs.flatMap((traceId, i) => {
        const [root, child] = [1, 2].map((n) => spanIdOf(traceId, n));
        return [
          {
            traceId,
            spanId: child,
            parentSpanId: root,
            name: 'child',
            startTimeUnixNano: nanos(1000 + i),
            endTimeUnixNano: nanos(1001 + i),
            attributes: [str('langfuse.trace.name', `named-${i}`), str('langfuse.trace.input', '"explicit in"')],
          },
          {
            traceId,
            spanId: root,
            name: 'root-op',
            startTimeUnixNano: nanos(1000 + i),
            endTimeUnixNano: nanos(1002 + i),
            attributes: [str('input.value', 'root in'), str('output.value', 'root out')],
          },
        ];
      });
      t.equal((await postJson({ resourceSpans: [{ scopeSpans: [{ spans }] }] })).status, 200);
      for (const [i, traceId] of pairs.entries()) {
        t.match(
          await readTrace(traceId),
          { name: `named-${i}`, input: 'explicit in', output: 'root out' },
          `pair ${i}: the child's name and input, the root's output`,
        );
      }

      // Across exports: the explicit name stored first, the root later, and the other way round.
      const [first, second] = [traceIdHex(), traceIdHex()];
      const child = (traceId: string) => ({
        traceId,
        spanId: spanIdOf(traceId, 2),
        parentSpanId: spanIdOf(traceId, 1),
        name: 'child',
        startTimeUnixNano: nanos(3000),
        attributes: [str('langfuse.trace.name', 'explicit')],
      });
      const root = (traceId: string) => ({
        traceId,
        spanId: spanIdOf(traceId, 1),
        name: 'root-op',
        startTimeUnixNano: nanos(2000),
      });
      const send = (...sent: unknown[]) => postJson({ resourceSpans: [{ scopeSpans: [{ spans: sent }] }] });
      await send(child(first));
      await send(root(first));
      t.equal((await readTrace(first)).name, 'explicit', 'a stored explicit name stays when the root arrives later');
      await send(root(second));
      t.equal((await readTrace(second)).name, 'root-op', 'the root names a trace nothing else names');
      await send(child(second));
      t.equal((await readTrace(second)).name, 'explicit', "an explicit name replaces the root's");
    });
  });
}

t.test('gen_ai usage normalisation into exclusive buckets', async (t) => {
  t.same(
    genAiUsageOf({
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 40,
      'gen_ai.usage.total_tokens': 140,
    }),
    { input: 100, output: 40, total: 140 },
  );
  t.same(
    genAiUsageOf({
      'gen_ai.usage.prompt_tokens': '50',
      'gen_ai.usage.completion_tokens': 20,
      'gen_ai.usage.cache_read_input_tokens': 20,
      'gen_ai.usage.cache_creation_input_tokens': 5,
      'gen_ai.usage.audio_tokens': 4,
    }),
    { input_cached_tokens: 20, input_cache_creation: 5, output_audio_tokens: 4, input: 25, output: 16 },
  );
  t.same(genAiUsageOf({ 'llm.token_count.prompt': 7, 'llm.token_count.completion': 3, 'llm.token_count.total': 10 }), {
    input: 7,
    output: 3,
    total: 10,
  });
  t.same(
    genAiUsageOf({ 'gen_ai.usage.details.image_tokens': 9, 'gen_ai.usage.cost': 0.2 }),
    { image_tokens: 9 },
    'other counts kept, details. dropped, cost is not usage',
  );
  t.same(
    genAiUsageOf({ 'gen_ai.usage.input_tokens': 5, 'gen_ai.usage.cache_read_input_tokens': 9 }),
    { input_cached_tokens: 9, input: 0 },
    'never negative',
  );
  t.same(
    genAiUsageOf({
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 200,
      'gen_ai.usage.cache_read.input_tokens': 400,
      'gen_ai.usage.cache_creation.input_tokens': 100,
      'gen_ai.usage.reasoning.output_tokens': 50,
    }),
    { input_cached_tokens: 400, input_cache_creation: 100, output_reasoning_tokens: 50, input: 500, output: 150 },
    "the semantic conventions' names (1.37+)",
  );
  t.equal(genAiUsageOf({ 'gen_ai.request.model': 'x', 'gen_ai.usage.input_tokens': -1 }), undefined);
});

t.test('a protobuf answer with partial success', async (t) => {
  const bytes = encodeResponse({ rejectedSpans: 2, errorMessage: 'two refused' });
  t.same(otlp.ExportTraceServiceResponse.toObject(otlp.ExportTraceServiceResponse.decode(bytes), { longs: Number }), {
    partialSuccess: { rejectedSpans: 2, errorMessage: 'two refused' },
  });
  t.equal(encodeResponse().length, 0);
});

t.test('observation type mapping', async (t) => {
  t.equal(
    observationTypeOf({ 'langfuse.observation.type': 'agent', 'gen_ai.operation.name': 'chat' }),
    'AGENT',
    'the Langfuse type first',
  );
  t.equal(
    observationTypeOf({ 'langfuse.observation.type': 'bogus', 'gen_ai.request.model': 'm' }),
    'GENERATION',
    'an unknown type falls through',
  );
  t.equal(observationTypeOf({ 'openinference.span.kind': 'LLM' }), 'GENERATION');
  t.equal(observationTypeOf({ 'openinference.span.kind': 'retriever' }), 'RETRIEVER');
  for (const [op, type] of [
    ['chat', 'GENERATION'],
    ['text_completion', 'GENERATION'],
    ['generate_content', 'GENERATION'],
    ['embeddings', 'EMBEDDING'],
    ['invoke_agent', 'AGENT'],
    ['create_agent', 'AGENT'],
    ['execute_tool', 'TOOL'],
  ]) {
    t.equal(observationTypeOf({ 'gen_ai.operation.name': op }), type, op);
  }
  t.equal(observationTypeOf({ 'gen_ai.tool.call.id': 'c1' }), 'TOOL');
  t.equal(observationTypeOf({ 'llm.model_name': 'm' }), 'GENERATION');
  t.equal(observationTypeOf({ 'http.method': 'GET' }), 'SPAN');
});

t.test('flattened metadata: JSON values are read as JSON (Python SDK), other text stays text (JS SDK)', async (t) => {
  const flattened = (prefix: string) => ({
    [`${prefix}.tenant`]: '"acme"',
    [`${prefix}.count`]: '3',
    [`${prefix}.flags`]: '{"a":true}',
    [`${prefix}.ids`]: '["x","y"]',
    [`${prefix}.quoted_number`]: '"42"',
    [`${prefix}.team`]: 'core team',
    [`${prefix}.on`]: true,
  });
  const expected = {
    tenant: 'acme',
    count: 3,
    flags: { a: true },
    ids: ['x', 'y'],
    quoted_number: '42',
    team: 'core team',
    on: true,
  };
  const span: OtelSpan = {
    traceId: 'ab'.repeat(16),
    spanId: 'cd'.repeat(8),
    name: 'root',
    startTime: at(0),
    statusCode: 0,
    attributes: { ...flattened('langfuse.trace.metadata'), ...flattened('langfuse.observation.metadata') },
    resourceAttributes: {},
    scope: { name: 'langfuse-sdk', attributes: {} },
  };
  t.same(explicitTraceFields(span).metadata, expected);
  t.same(observationBodyOf(span, 'SPAN').metadata, {
    ...expected,
    scope: { name: 'langfuse-sdk', version: undefined, attributes: {} },
  });
});
