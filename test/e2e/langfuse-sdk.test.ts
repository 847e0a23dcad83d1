// The real `langfuse` npm SDK (v3) against the running service: traces, spans, generations with usage, events and
// scores sent through POST /api/public/ingestion, flushed, and the stored rows asserted.
import { Langfuse } from 'langfuse';
import t from 'tap';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { getScore, listScores } from '../../src/platform/store/repos/scores.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { getObservation, listObservationsOfTrace } from '../../src/platform/store/repos/observations.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';

const s = await startTestService(t, baseConfig());
const db = s.service.db;
const key = await createApiKey(db, {
  kind: 'project',
  organizationId: 'default',
  projectId: 'default',
  now: Date.now(),
});

t.test('langfuse SDK v3 traces, spans, generations, events and scores', async (t) => {
  const errors: unknown[] = [];
  const langfuse = new Langfuse({
    publicKey: key.publicKey,
    secretKey: key.secretKey,
    baseUrl: s.adminUrl,
    flushAt: 1,
  });
  langfuse.on('error', (e: unknown) => errors.push(e));

  const trace = langfuse.trace({
    name: 'sdk-trace',
    userId: 'user-1',
    sessionId: 'session-1',
    input: { question: 'why?' },
    metadata: { team: 'a' },
    tags: ['sdk', 'e2e'],
    release: 'r9',
    version: 'v9',
  });
  const span = trace.span({ name: 'retrieval', input: { query: 'why' }, metadata: { index: 'docs' } });
  const generation = span.generation({
    name: 'answer',
    model: 'gpt-4o-mini',
    modelParameters: { temperature: 0.1 },
    input: [{ role: 'user', content: 'why?' }],
  });
  generation.end({ output: { role: 'assistant', content: 'because' }, usage: { input: 11, output: 4 } });
  span.end({ output: { found: 3 } });
  trace.event({ name: 'feedback-shown', metadata: { ui: 'web' } });
  trace.score({ name: 'helpfulness', value: 0.8, comment: 'fine' });
  generation.score({ name: 'correct', value: 1, dataType: 'BOOLEAN' });
  trace.update({ output: { answer: 'because' }, metadata: { stage: 'done' } });
  await langfuse.flushAsync();
  await langfuse.shutdownAsync();
  t.same(errors, [], 'the SDK reported no error');

  const stored = await getTrace(db, 'default', trace.id);
  t.match(stored, {
    name: 'sdk-trace',
    userId: 'user-1',
    sessionId: 'session-1',
    input: { question: 'why?' },
    output: { answer: 'because' },
    metadata: { team: 'a', stage: 'done' },
    tags: { sdk: '', e2e: '' },
    release: 'r9',
    version: 'v9',
    source: 'ingestion',
    tokens: 15,
  });
  const observations = await listObservationsOfTrace(db, 'default', trace.id);
  t.same(observations.map((o) => o.type).sort(), ['EVENT', 'GENERATION', 'SPAN']);
  t.match(await getObservation(db, 'default', span.id), {
    type: 'SPAN',
    name: 'retrieval',
    input: { query: 'why' },
    output: { found: 3 },
    attributes: { index: 'docs' },
  });
  const gen = await getObservation(db, 'default', generation.id);
  t.match(gen, {
    type: 'GENERATION',
    name: 'answer',
    parentObservationId: span.id,
    model: 'gpt-4o-mini',
    modelParameters: { temperature: 0.1 },
    output: { role: 'assistant', content: 'because' },
    totalTokens: 15,
  });
  t.match(gen!.usageDetails, { input: 11, output: 4, total: 15 });
  t.ok(gen!.endTime, 'the generation ended');
  const scores = await listScores(db, 'default', { traceId: trace.id, limit: 10, offset: 0 });
  t.equal(scores.total, 2);
  const byName = Object.fromEntries(scores.data.map((x) => [x.name, x]));
  t.match(byName.helpfulness, { value: 0.8, dataType: 'NUMERIC', comment: 'fine', source: 'API' });
  t.match(byName.correct, { value: 1, stringValue: 'True', dataType: 'BOOLEAN', observationId: generation.id });
  t.ok(await getScore(db, 'default', byName.correct.id));
});

t.test("the SDK's fetch of the trace through the public API", async (t) => {
  const langfuse = new Langfuse({
    publicKey: key.publicKey,
    secretKey: key.secretKey,
    baseUrl: s.adminUrl,
    flushAt: 1,
  });
  const traces = await langfuse.api.traceList({ name: 'sdk-trace' });
  t.equal(traces.data.length, 1);
  t.match(traces.data[0], { name: 'sdk-trace', userId: 'user-1' });
  t.same([...(traces.data[0].tags ?? [])].sort(), ['e2e', 'sdk']);
  await langfuse.shutdownAsync();
});
