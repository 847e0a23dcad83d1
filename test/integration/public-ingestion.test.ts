// POST /api/public/ingestion (docs/public-api.md "Ingestion and scores"): every event type, the 207 contract with
// mixed successes and errors, merge rules on repeated ids, an observation before its trace, the 64 MiB boundary,
// key kinds, and the stored rows through the repositories, GET /api/public/traces and GET /v1/traces/{id}. Both backends.
import t from 'tap';
import { INTAKE_BODY_LIMIT } from '../../admin/public-api/intake-limits.ts';
import { getScore } from '../../src/platform/store/repos/scores.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { getObservation, listObservationsOfTrace } from '../../src/platform/store/repos/observations.ts';
import { basicAuth as auth, callAdmin as call, startPublicApiService } from '../helpers/public-api.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const T0 = Date.parse('2026-05-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
let n = 0;
const ev = (type: string, body: Record<string, unknown>, timestamp = at(0)) => ({
  id: `ev-${++n}`,
  type,
  timestamp,
  body,
});

for (const backend of STORE_BACKENDS) {
  t.test(`ingestion on ${backend}`, async (t) => {
    const { s, db, key, ingestKey, orgKey } = await startPublicApiService(t, backend);
    const ingest = (batch: unknown[], k = key) =>
      call(s, 'POST', '/api/public/ingestion', auth(k), JSON.stringify({ batch }));
    const restKey = key.secretKey;

    t.test('every event type lands in traces, observations and scores', async (t) => {
      const batch = [
        ev('trace-create', {
          id: 'tr-a',
          timestamp: at(0),
          name: 'chat',
          userId: 'u1',
          sessionId: 's1',
          input: { q: 'hi' },
          output: 'hello',
          metadata: { a: 1, nested: { x: 1 } },
          tags: ['beta', 'prod'],
          release: 'r1',
          version: 'v1',
          environment: 'Langfuse-Staging',
          public: true,
        }),
        ev('span-create', {
          id: 'sp-1',
          traceId: 'tr-a',
          name: 'retrieve',
          startTime: at(10),
          input: 'q',
          metadata: { k: 'v' },
        }),
        ev('span-update', { id: 'sp-1', traceId: 'tr-a', endTime: at(200), output: { docs: 2 } }, at(1)),
        ev('generation-create', {
          id: 'gen-1',
          traceId: 'tr-a',
          parentObservationId: 'sp-1',
          name: 'llm',
          startTime: at(20),
          model: 'gpt-x',
          modelParameters: { temperature: 0.2 },
          usage: { input: 10, output: 5 },
          completionStartTime: at(30),
          promptName: 'p',
          promptVersion: 2,
        }),
        ev(
          'generation-update',
          {
            id: 'gen-1',
            endTime: at(150),
            usageDetails: {
              prompt_tokens: 12,
              completion_tokens: 7,
              total_tokens: 19,
              prompt_tokens_details: { cached_tokens: 2 },
            },
            costDetails: { input: 0.001, output: 0.002 },
            level: 'WARNING',
            statusMessage: 'slow',
          },
          at(2),
        ),
        ev('event-create', { id: 'evt-1', traceId: 'tr-a', name: 'click', startTime: at(40) }),
        ev('observation-create', {
          id: 'obs-legacy',
          traceId: 'tr-a',
          type: 'EVENT',
          name: 'legacy',
          startTime: at(50),
        }),
        ev('observation-update', { id: 'obs-legacy', type: 'EVENT', output: 'done' }, at(3)),
        ev('score-create', {
          id: 'sc-1',
          traceId: 'tr-a',
          observationId: 'gen-1',
          name: 'quality',
          value: 0.9,
          comment: 'good',
        }),
        ev('sdk-log', { log: { message: 'debug' } }),
      ];
      const r = await ingest(batch);
      t.equal(r.status, 207);
      t.same(r.body.errors, []);
      t.same(
        r.body.successes,
        batch.filter((e) => e.type !== 'sdk-log').map((e) => ({ id: e.id, status: 201 })),
        'sdk-log is in neither list',
      );

      const trace = await getTrace(db, 'default', 'tr-a');
      t.match(trace, {
        name: 'chat',
        userId: 'u1',
        sessionId: 's1',
        input: { q: 'hi' },
        output: 'hello',
        metadata: { a: 1, nested: { x: 1 } },
        tags: { beta: '', prod: '' },
        release: 'r1',
        version: 'v1',
        environment: 'staging',
        public: true,
        source: 'ingestion',
        startTime: at(0),
        endTime: at(200),
        status: 'completed',
      });
      t.equal(trace!.tokens, 19);
      t.equal(trace!.cost, 0.003);
      const span = await getObservation(db, 'default', 'sp-1');
      t.match(span, {
        type: 'SPAN',
        traceId: 'tr-a',
        name: 'retrieve',
        startTime: at(10),
        endTime: at(200),
        input: 'q',
        output: { docs: 2 },
        attributes: { k: 'v' },
      });
      const gen = await getObservation(db, 'default', 'gen-1');
      t.match(gen, {
        type: 'GENERATION',
        parentObservationId: 'sp-1',
        model: 'gpt-x',
        modelParameters: { temperature: 0.2 },
        completionStartTime: at(30),
        endTime: at(150),
        level: 'WARNING',
        statusMessage: 'slow',
        promptName: 'p',
        promptVersion: 2,
        totalTokens: 19,
        totalCost: 0.003,
      });
      t.same(
        gen!.usageDetails,
        { input: 10, input_cached_tokens: 2, output: 7, total: 19 },
        "OpenAI usage as exclusive buckets, replacing the create's",
      );
      t.match(await getObservation(db, 'default', 'evt-1'), { type: 'EVENT', name: 'click' });
      t.match(await getObservation(db, 'default', 'obs-legacy'), { type: 'EVENT', name: 'legacy', output: 'done' });
      t.match(await getScore(db, 'default', 'sc-1'), {
        name: 'quality',
        value: 0.9,
        dataType: 'NUMERIC',
        source: 'API',
        traceId: 'tr-a',
        observationId: 'gen-1',
        comment: 'good',
      });

      const list = await call(s, 'GET', '/api/public/traces?name=chat', auth(key));
      t.equal(list.status, 200);
      t.match(list.body.data[0], {
        id: 'tr-a',
        userId: 'u1',
        tags: ['beta', 'prod'],
        public: true,
        environment: 'staging',
        totalCost: 0.003,
      });
      t.same([...list.body.data[0].observations].sort(), ['evt-1', 'gen-1', 'obs-legacy', 'sp-1']);
      const rest = await call(s, 'GET', '/v1/traces/tr-a', `Bearer ${restKey}`);
      t.equal(rest.status, 200);
      t.match(rest.body, { id: 'tr-a', name: 'chat', status: 'completed', tokens: 19, cost: 0.003, duration: 200 });
      t.equal(rest.body.spans.length, 4);
    });

    t.test('207 with successes and per-event errors side by side', async (t) => {
      const good = ev('trace-create', { id: 'tr-mixed', name: 'ok' });
      const batch = [
        good,
        { id: 'bad-type', type: 'nope-create', timestamp: at(0), body: {} },
        { id: 'bad-time', type: 'trace-create', timestamp: 'yesterday', body: { id: 'x' } },
        {
          id: 'bad-level',
          type: 'span-create',
          timestamp: at(0),
          body: { id: 'sp-x', traceId: 'tr-mixed', level: 'LOUD' },
        },
        { id: 'no-obs-id', type: 'span-create', timestamp: at(0), body: { traceId: 'tr-mixed' } },
        { id: 'bad-tags', type: 'trace-create', timestamp: at(0), body: { id: 'tr-y', tags: 'a,b' } },
        {
          id: 'half-prompt',
          type: 'generation-create',
          timestamp: at(0),
          body: { id: 'g-x', traceId: 'tr-mixed', promptName: 'p' },
        },
        {
          id: 'bool-score',
          type: 'score-create',
          timestamp: at(0),
          body: { traceId: 'tr-mixed', name: 'b', value: 2, dataType: 'BOOLEAN' },
        },
        { id: 'no-target', type: 'score-create', timestamp: at(0), body: { name: 'n', value: 1 } },
        { id: 'orphan-update', type: 'span-update', timestamp: at(0), body: { id: 'sp-orphan', output: 1 } },
        { type: 'trace-create', timestamp: at(0), body: {} },
        'not an object',
      ];
      const r = await ingest(batch);
      t.equal(r.status, 207);
      t.same(r.body.successes, [{ id: good.id, status: 201 }]);
      const byId = Object.fromEntries((r.body.errors as any[]).map((e) => [e.id, e]));
      t.equal(r.body.errors.length, 11);
      for (const e of r.body.errors) {
        t.equal(e.status, 400);
        t.equal(e.error, 'InvalidRequestError');
        t.match(e.message, /^Invalid request data: /);
      }
      t.match(byId['bad-type'].message, /type: must be one of "trace-create"/);
      t.match(byId['bad-time'].message, /timestamp: must be an ISO 8601 date-time/);
      t.match(byId['bad-level'].message, /body\.level: must be one of "DEBUG"/);
      t.match(byId['no-obs-id'].message, /body\.id: is required/);
      t.match(byId['bad-tags'].message, /body\.tags: must be array/);
      t.match(byId['half-prompt'].message, /promptName and promptVersion must be given together/);
      t.match(byId['bool-score'].message, /body\.value: must be 1 \(true\) or 0 \(false\)/);
      t.match(byId['no-target'].message, /exactly one target/);
      t.match(byId['orphan-update'].message, /body\.traceId: is required for observation sp-orphan/);
      const unknown = (r.body.errors as any[]).filter((e) => e.id === 'unknown').map((e) => e.message);
      t.match(
        unknown,
        [/id: is required/, /event: must be object/],
        'events without a string id are reported as "unknown"',
      );
      t.ok(await getTrace(db, 'default', 'tr-mixed'));
      t.notOk(await getObservation(db, 'default', 'sp-x'));
    });

    t.test('merge rules for repeated events on one id', async (t) => {
      let r = await ingest([
        ev('trace-create', {
          id: 'tr-m',
          timestamp: at(100),
          name: 'first',
          userId: 'u1',
          metadata: { a: 1, deep: { x: 1, y: 1 } },
          tags: ['one'],
          environment: 'prod',
          input: 'in',
        }),
      ]);
      t.same(r.body.errors, []);
      r = await ingest([
        // Out of order in the batch: the update sorts after the create whatever its position.
        ev('span-update', { id: 'sp-m', name: 'renamed' }, at(500)),
        ev(
          'span-create',
          { id: 'sp-m', traceId: 'tr-m', name: 'orig', startTime: at(150), metadata: { m: 1 } },
          at(400),
        ),
        ev('trace-create', {
          id: 'tr-m',
          timestamp: at(300),
          name: 'second',
          metadata: { b: 2, deep: { y: 2 } },
          tags: ['two', 'one'],
          environment: 'dev',
          userId: null,
        }),
      ]);
      t.same(r.body.errors, []);
      const trace = await getTrace(db, 'default', 'tr-m');
      t.match(
        trace,
        { name: 'second', userId: 'u1', input: 'in', environment: 'prod', startTime: at(100) },
        'later values win; absent and null keep; environment and earliest timestamp kept',
      );
      t.same(trace!.metadata, { a: 1, b: 2, deep: { x: 1, y: 2 } }, 'metadata deep-merged');
      t.same(Object.keys(trace!.tags).sort(), ['one', 'two'], 'tags unioned');
      t.match(await getObservation(db, 'default', 'sp-m'), {
        name: 'renamed',
        type: 'SPAN',
        startTime: at(150),
        traceId: 'tr-m',
      });
      r = await ingest([
        ev('span-update', { id: 'sp-m', traceId: 'other-trace', metadata: { n: 2 }, endTime: at(900) }),
      ]);
      const span = await getObservation(db, 'default', 'sp-m');
      t.match(
        span,
        { traceId: 'tr-m', endTime: at(900), attributes: { m: 1, n: 2 } },
        'trace of an observation is kept; metadata merged',
      );
      t.equal((await getTrace(db, 'default', 'tr-m'))!.endTime, at(900), 'the trace ends with its last observation');
    });

    t.test(
      'repeated ids of every type in one batch merge in order; one refused event never fails the others',
      async (t) => {
        const batch = [
          ev('trace-create', { id: 'tr-dup', name: 'first', userId: 'u1' }, at(0)),
          ev('score-create', { id: 'sc-dup', traceId: 'tr-dup', name: 'q', value: 0.1, comment: 'first' }, at(1)),
          ev('span-create', { id: 'sp-dup', traceId: 'tr-dup', name: 'a', startTime: at(5) }, at(2)),
          ev('score-create', { id: 'sc-dup', traceId: 'tr-dup', name: 'q', value: 0.7 }, at(3)),
          ev('trace-create', { id: 'tr-dup', name: 'second' }, at(4)),
          ev('span-create', { id: 'sp-dup', traceId: 'tr-dup', name: 'b' }, at(5)),
          ev('score-create', { id: 'sc-other', traceId: 'tr-dup', name: 'z', value: 1 }, at(6)),
          // What PostgreSQL cannot hold, each refused alone with a 400 naming the field.
          ev('trace-create', { id: 'tr-\u0000', name: 'nul id' }),
          ev('trace-create', { id: 'tr-long-user', userId: 'u'.repeat(300_000) }),
          ev('trace-create', { id: 'tr-lone', sessionId: 'x\ud800y' }),
          ev('generation-create', { id: 'g-big-prompt', traceId: 'tr-dup', promptName: 'p', promptVersion: 2 ** 31 }),
          ev('generation-create', { id: 'g-big-usage', traceId: 'tr-dup', usage: { input: 1e20 } }),
          ev('generation-create', { id: 'g-big-usage-details', traceId: 'tr-dup', usageDetails: { input: 2 ** 63 } }),
          ev('span-create', { id: 'sp-year-0', traceId: 'tr-dup', startTime: '0000-06-01T00:00:00Z' }),
          ev('score-create', { id: 'sc-long-name', traceId: 'tr-dup', name: 'n'.repeat(300_000), value: 1 }),
          ev('trace-create', { id: 'tr-metadata-key', metadata: { 'k\u0000': 1 } }),
        ];
        const r = await ingest(batch);
        t.equal(r.status, 207);
        t.same(
          r.body.successes.map((e: any) => e.id),
          batch.slice(0, 7).map((e) => e.id),
          'every valid event succeeds, repeats included',
        );
        const errorFields = Object.fromEntries((r.body.errors as any[]).map((e) => [e.id, `${e.status} ${e.message}`]));
        t.same(
          Object.keys(errorFields),
          batch.slice(7).map((e) => e.id),
          'exactly the unstorable events are refused',
        );
        for (const [i, field] of [
          [7, 'body.id'],
          [8, 'body.userId'],
          [9, 'body.sessionId'],
          [10, 'body.promptVersion'],
          [11, 'body.usage.input'],
          [12, 'body.usageDetails.input'],
          [13, 'body.startTime'],
          [14, 'body.name'],
          [15, 'body.metadata.k'],
        ] as const) {
          t.match(
            errorFields[batch[i].id],
            new RegExp(`^400 Invalid request data: ${field.replace(/\./g, '\\.')}`),
            `${batch[i].body.id}: ${field}`,
          );
        }
        t.match(await getTrace(db, 'default', 'tr-dup'), { name: 'second', userId: 'u1' });
        t.match(await getObservation(db, 'default', 'sp-dup'), { name: 'b', startTime: at(5) });
        t.match(
          await getScore(db, 'default', 'sc-dup'),
          { value: 0.7, comment: 'first' },
          'the later score wins; an absent comment is kept',
        );
        t.ok(await getScore(db, 'default', 'sc-other'));
        for (const id of ['g-big-prompt', 'g-big-usage', 'sp-year-0'])
          t.notOk(await getObservation(db, 'default', id), `${id} not stored`);

        const again = await ingest(batch);
        t.same(again.body.successes.length, 7, 'a retried batch succeeds the same way');
        t.same(
          (
            await ingest([
              ev('score-create', { id: 'sc-dup', traceId: 'tr-dup', name: 'q', value: 0.8, comment: null }),
            ])
          ).body.errors,
          [],
        );
        t.match(
          await getScore(db, 'default', 'sc-dup'),
          { value: 0.8, comment: null },
          'comment: null clears the comment',
        );
        const viaApi = await call(s, 'POST', '/api/public/scores', auth(key), {
          id: 'sc-dup',
          traceId: 'tr-dup',
          name: 'q',
          value: 0.9,
          comment: 'again',
        });
        t.equal(viaApi.status, 200);
        t.equal((await getScore(db, 'default', 'sc-dup'))!.comment, 'again');
      },
    );

    t.test(
      'a mixed batch of every event type: exactly the invalid events refused, every valid entity stored once with its last values',
      async (t) => {
        const observationTypes: [string, string][] = [
          ['span-create', 'SPAN'],
          ['event-create', 'EVENT'],
          ['generation-create', 'GENERATION'],
          ['agent-create', 'AGENT'],
          ['tool-create', 'TOOL'],
          ['chain-create', 'CHAIN'],
          ['retriever-create', 'RETRIEVER'],
          ['evaluator-create', 'EVALUATOR'],
          ['embedding-create', 'EMBEDDING'],
          ['guardrail-create', 'GUARDRAIL'],
        ];
        const valid = [
          ev('trace-create', { id: 'mix-tr', name: 'first' }, at(0)),
          ev('trace-create', { id: 'mix-tr', name: 'last' }, at(1)),
          ...observationTypes.flatMap(([type], i) => [
            ev(type, { id: `mix-ob-${i}`, traceId: 'mix-tr', name: 'first', startTime: at(10) }, at(2)),
            ev(type, { id: `mix-ob-${i}`, traceId: 'mix-tr', name: 'last' }, at(3)),
          ]),
          ev('span-update', { id: 'mix-ob-0', statusMessage: 'updated' }, at(4)),
          ev('generation-update', { id: 'mix-ob-2', usageDetails: { input: 3 } }, at(4)),
          ev('observation-create', { id: 'mix-legacy', traceId: 'mix-tr', type: 'EVENT', name: 'first' }, at(2)),
          ev('observation-update', { id: 'mix-legacy', type: 'EVENT', name: 'last' }, at(3)),
          ev('score-create', { id: 'mix-sc', traceId: 'mix-tr', name: 'q', value: 1 }, at(2)),
          ev('score-create', { id: 'mix-sc', traceId: 'mix-tr', name: 'q', value: 2 }, at(3)),
        ];
        const invalid = [
          ev('trace-create', { id: 'mix-bad-tr', tags: 'not-a-list' }),
          ...observationTypes.map(([type], i) => ev(type, { id: `mix-bad-ob-${i}`, traceId: 'mix-tr', level: 'LOUD' })),
          ev('span-update', { id: 'mix-bad-update', traceId: 'mix-tr', endTime: 'later' }),
          ev('generation-update', { id: 'mix-bad-gen-update', traceId: 'mix-tr', promptName: 'p' }),
          ev('observation-create', { id: 'mix-bad-legacy', traceId: 'mix-tr', type: 'WIDGET' }),
          ev('observation-update', { id: 'mix-bad-legacy-update', traceId: 'mix-tr' }),
          ev('score-create', { id: 'mix-bad-sc', traceId: 'mix-tr', name: 'q', value: 'yes', dataType: 'NUMERIC' }),
          ev('score-create', { id: 'mix-bad-sc-nul', traceId: 'mix-tr', name: 'q\u0000', value: 1 }),
        ];
        const log = ev('sdk-log', { log: 'hello' });
        // Interleaved, so that refusals sit between the repeats of valid entities.
        const batch = [log, ...valid.flatMap((e, i) => (invalid[i] ? [e, invalid[i]] : [e]))];
        const r = await ingest(batch);
        t.equal(r.status, 207);
        t.same(
          r.body.errors.map((e: any) => e.id).sort(),
          invalid.map((e) => e.id).sort(),
          'exactly the invalid events are listed',
        );
        t.ok(
          r.body.errors.every((e: any) => e.status === 400),
          'each a 400',
        );
        t.same(
          r.body.successes.map((e: any) => e.id).sort(),
          valid.map((e) => e.id).sort(),
          'every valid event succeeds; sdk-log in neither list',
        );

        const count = async (table: string, ids: string[]) =>
          Number(
            (
              await db.query<{ n: unknown }>(
                `SELECT count(*) AS n FROM ${table} WHERE project_id = 'default' AND id = ANY($1::text[])`,
                [ids],
              )
            ).rows[0].n,
          );
        t.equal(await count('traces', ['mix-tr', 'mix-bad-tr']), 1, 'one trace');
        const observationIds = [...observationTypes.map((_, i) => `mix-ob-${i}`), 'mix-legacy'];
        t.equal(
          await count('observations', [...observationIds, ...invalid.map((e) => e.body.id as string)]),
          observationIds.length,
          'one row per valid observation, none for the invalid',
        );
        t.equal(await count('scores', ['mix-sc', 'mix-bad-sc', 'mix-bad-sc-nul']), 1, 'one score');
        t.match(await getTrace(db, 'default', 'mix-tr'), { name: 'last' });
        for (const [i, [, type]] of observationTypes.entries())
          t.match(await getObservation(db, 'default', `mix-ob-${i}`), { type, name: 'last', startTime: at(10) }, type);
        t.match(await getObservation(db, 'default', 'mix-ob-0'), { statusMessage: 'updated' });
        t.same((await getObservation(db, 'default', 'mix-ob-2'))!.usageDetails, { input: 3, total: 3 });
        t.match(await getObservation(db, 'default', 'mix-legacy'), { type: 'EVENT', name: 'last' });
        t.match(await getScore(db, 'default', 'mix-sc'), { value: 2 });
      },
    );

    t.test('trace tags named like Object.prototype members are kept', async (t) => {
      const tags = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__'];
      t.same((await ingest([ev('trace-create', { id: 'tr-proto-tags', tags })])).body.errors, []);
      t.same(Object.keys((await getTrace(db, 'default', 'tr-proto-tags'))!.tags).sort(), [...tags].sort());
      const listed = await call(s, 'GET', '/api/public/traces/tr-proto-tags', auth(key));
      t.same([...listed.body.tags].sort(), [...tags].sort());
    });

    t.test('concurrent batches on one trace lose no field', async (t) => {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          ingest([
            ev('trace-create', { id: 'tr-race', metadata: { [`k${i}`]: i }, tags: [`t${i}`] }),
            ev('span-create', { id: `sp-race-${i}`, traceId: 'tr-race', startTime: at(i) }),
          ]),
        ),
      );
      t.ok(results.every((r) => r.status === 207 && r.body.errors.length === 0));
      const trace = await getTrace(db, 'default', 'tr-race');
      t.equal(Object.keys(trace!.metadata).length, 12, "every batch's metadata key kept");
      t.equal(Object.keys(trace!.tags).length, 12);
      t.equal((await listObservationsOfTrace(db, 'default', 'tr-race')).length, 12);
    });

    t.test('an observation before its trace creates the trace, which the trace-create then fills', async (t) => {
      let r = await ingest([
        ev('generation-create', {
          id: 'g-early',
          traceId: 'tr-late',
          startTime: at(50),
          usage: { promptTokens: 3, completionTokens: 4 },
          level: 'ERROR',
        }),
      ]);
      t.same(r.body.errors, []);
      const implicit = await getTrace(db, 'default', 'tr-late');
      t.match(implicit, {
        id: 'tr-late',
        name: null,
        source: 'ingestion',
        startTime: at(50),
        status: 'error',
        tokens: 7,
      });
      r = await ingest([ev('trace-create', { id: 'tr-late', timestamp: at(0), name: 'late', userId: 'u9' })]);
      t.same(r.body.errors, []);
      t.match(await getTrace(db, 'default', 'tr-late'), { name: 'late', userId: 'u9', startTime: at(0), tokens: 7 });
      t.equal((await listObservationsOfTrace(db, 'default', 'tr-late')).length, 1);
    });

    t.test('observations may join a trace of the REST API without changing its status', async (t) => {
      const created = await call(s, 'POST', '/v1/traces', `Bearer ${restKey}`, { name: 'rest' });
      t.equal(created.status, 201);
      const r = await ingest([
        ev('span-create', { id: 'sp-rest', traceId: created.body.id, startTime: at(0), endTime: at(10) }),
      ]);
      t.same(r.body.errors, []);
      t.match(await getTrace(db, 'default', created.body.id), { status: 'in_progress', source: 'api', endTime: null });
    });

    t.test('a later observation rewrites its trace row only when it moves the end or the status', async (t) => {
      // The row version: a new one for every write of the row.
      const version = async () =>
        (await db.query<{ v: string }>(`SELECT xmin::text AS v FROM traces WHERE id = 'tr-settle'`)).rows[0].v;
      let r = await ingest([
        ev('trace-create', { id: 'tr-settle', timestamp: at(0), name: 'settle' }),
        ev('span-create', { id: 'sp-settle-1', traceId: 'tr-settle', startTime: at(0), endTime: at(100) }),
      ]);
      t.same(r.body.errors, []);
      const first = await version();
      r = await ingest([
        ev('span-create', { id: 'sp-settle-2', traceId: 'tr-settle', startTime: at(10), endTime: at(50) }),
      ]);
      t.same(r.body.errors, []);
      t.equal((await listObservationsOfTrace(db, 'default', 'tr-settle')).length, 2, 'the observation is stored');
      t.equal(await version(), first, 'an observation within the trace leaves the trace row as it was');
      r = await ingest([
        ev('span-create', {
          id: 'sp-settle-3',
          traceId: 'tr-settle',
          startTime: at(20),
          endTime: at(300),
          level: 'ERROR',
        }),
      ]);
      t.same(r.body.errors, []);
      t.not(await version(), first, 'one that ends later and failed rewrites it');
      t.match(await getTrace(db, 'default', 'tr-settle'), { name: 'settle', endTime: at(300), status: 'error' });
    });

    t.test('whole-body errors', async (t) => {
      const notJson = await call(s, 'POST', '/api/public/ingestion', auth(key), '{"batch": [');
      t.equal(notJson.status, 400);
      t.equal(notJson.body.error, 'InvalidRequestError');
      for (const body of ['{}', '{"batch": {}}', '[]', 'null']) {
        const r = await call(s, 'POST', '/api/public/ingestion', auth(key), body);
        t.equal(r.status, 400, body);
        t.equal(r.body.message, 'Invalid request data');
        t.match(r.body.error, [{ path: ['batch'], message: /must be an array of events/ }]);
      }
      const empty = await ingest([]);
      t.same(empty, { status: 207, body: { successes: [], errors: [] } });
    });

    t.test('the 64 MiB limit: a 6 MB batch stored whole, a body over 64 MiB refused with 413', async (t) => {
      const bodyOf = (size: number) => {
        const head = JSON.stringify({ batch: [ev('trace-create', { id: 'tr-big', input: '' })] });
        return head.replace('"input":""', `"input":"${'x'.repeat(size - Buffer.byteLength(head))}"`);
      };
      const large = bodyOf(6_000_000);
      const ok = await call(s, 'POST', '/api/public/ingestion', auth(key), large);
      t.equal(ok.status, 207);
      t.same(ok.body.errors, []);
      t.equal(
        ((await getTrace(db, 'default', 'tr-big'))!.input as string).length,
        6_000_000 - Buffer.byteLength(large.replace(/x+/, '')),
        'stored whole',
      );
      const over = await call(s, 'POST', '/api/public/ingestion', auth(key), bodyOf(INTAKE_BODY_LIMIT + 1));
      t.equal(over.status, 413);
      t.equal(over.body.error, 'PayloadTooLargeError');
    });

    t.test('key kinds: ingestion-only projects ingest, organization keys are 401', async (t) => {
      const r = await ingest(
        [
          ev('trace-create', { id: 'tr-io', name: 'io' }),
          ev('score-create', { traceId: 'tr-io', name: 's', value: 1 }),
        ],
        ingestKey,
      );
      t.equal(r.status, 207);
      t.equal(r.body.successes.length, 2);
      t.match(await getTrace(db, 'ingest', 'tr-io'), { name: 'io' });
      t.notOk(await getTrace(db, 'default', 'tr-io'), "lands in the key's project");
      const org = await ingest([ev('trace-create', { id: 'tr-org' })], orgKey);
      t.equal(org.status, 401);
      t.equal(org.body.error, 'UnauthorizedError');
      t.match(org.body.message, /Are you using an organization key\?/);
      const none = await call(s, 'POST', '/api/public/ingestion', '', '{"batch":[]}');
      t.equal(none.status, 401);
    });
  });
}
