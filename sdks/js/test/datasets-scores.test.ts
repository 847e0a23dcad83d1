// Datasets and scores against the real service: datasets create/get, items create/list, run items linking a stored
// trace to a dataset run; numeric, categorical and boolean scores on a trace, an observation and a session, with a
// score config; each read back through the public API; bad keys.
import t from 'tap';
import { SvcClient } from '../src/index.ts';
import { readPublic, sendPublic, startSdkTestService } from './service.ts';

const svc = await startSdkTestService(t);
const client = new SvcClient(svc.options);

// A stored trace with one observation, sent through the ingestion API.
const now = new Date().toISOString();
const ingested = await sendPublic(svc, 'POST', '/api/public/ingestion', {
  batch: [
    {
      id: 'e1',
      type: 'trace-create',
      timestamp: now,
      body: { id: 'trace-qa-1', name: 'qa run', sessionId: 'session-qa' },
    },
    {
      id: 'e2',
      type: 'span-create',
      timestamp: now,
      body: { id: 'obs-qa-1', traceId: 'trace-qa-1', name: 'answer', startTime: now },
    },
  ],
});
t.equal(ingested.status, 207);
t.equal(ingested.body.errors.length, 0);

t.test('datasets: create, get, items create and list, a run item linking a trace', async (t) => {
  const dataset = await client.datasets.create({
    name: 'evals/qa',
    description: 'questions',
    metadata: { owner: 'team' },
  });
  t.match(dataset, { name: 'evals/qa', description: 'questions', metadata: { owner: 'team' }, projectId: 'default' });
  t.match(await client.datasets.get('evals/qa'), { id: dataset.id, name: 'evals/qa' });

  const first = await client.datasets.createItem({
    datasetName: 'evals/qa',
    input: { question: '2+2?' },
    expectedOutput: '4',
    metadata: { level: 1 },
  });
  t.match(first, {
    datasetName: 'evals/qa',
    datasetId: dataset.id,
    status: 'ACTIVE',
    input: { question: '2+2?' },
    expectedOutput: '4',
  });
  const second = await client.datasets.createItem({
    datasetName: 'evals/qa',
    id: 'item-2',
    input: 'capital of France?',
    sourceTraceId: 'trace-qa-1',
  });
  t.equal(second.id, 'item-2');
  const updated = await client.datasets.createItem({ datasetName: 'evals/qa', id: 'item-2', expectedOutput: 'Paris' });
  t.match(updated, { id: 'item-2', input: 'capital of France?', expectedOutput: 'Paris' }, 'an id upserts');

  const all = await client.datasets.listItems({ datasetName: 'evals/qa' });
  t.equal(all.meta.totalItems, 2);
  t.same(all.data.map((i) => i.id).sort(), [first.id, 'item-2'].sort());
  const fromTrace = await client.datasets.listItems({ datasetName: 'evals/qa', sourceTraceId: 'trace-qa-1' });
  t.same(
    fromTrace.data.map((i) => i.id),
    ['item-2'],
  );
  const paged = await client.datasets.listItems({ datasetName: 'evals/qa', limit: 1, page: 2 });
  t.match(paged.meta, { page: 2, limit: 1, totalItems: 2, totalPages: 2 });
  t.equal(paged.data.length, 1);

  const runItem = await client.datasets.createRunItem({
    runName: 'run-1',
    runDescription: 'baseline',
    datasetItemId: 'item-2',
    traceId: 'trace-qa-1',
    metadata: { model: 'demo' },
  });
  t.match(runItem, { datasetRunName: 'run-1', datasetItemId: 'item-2', traceId: 'trace-qa-1', observationId: null });
  const byObservation = await client.datasets.createRunItem({
    runName: 'run-1',
    datasetItemId: first.id,
    observationId: 'obs-qa-1',
  });
  t.match(byObservation, { traceId: 'trace-qa-1', observationId: 'obs-qa-1' }, 'the trace of the observation');

  const run = await client.datasets.getRun('evals/qa', 'run-1');
  t.match(run, {
    name: 'run-1',
    description: 'baseline',
    metadata: { model: 'demo' },
    datasetName: 'evals/qa',
    datasetId: dataset.id,
  });
  t.same(run.datasetRunItems.map((i) => i.id).sort(), [runItem.id, byObservation.id].sort());
  const stored = await readPublic(svc, `/api/public/dataset-run-items?datasetId=${dataset.id}&runName=run-1`);
  t.equal(stored.meta.totalItems, 2, 'stored');
});

t.test('datasets: errors carry the status and the server message', async (t) => {
  await t.rejects(client.datasets.get('missing'), { name: 'SvcApiError', status: 404, message: /Dataset not found/ });
  await t.rejects(client.datasets.listItems({ datasetName: 'missing' }), { name: 'SvcApiError', status: 404 });
  await t.rejects(
    client.datasets.createRunItem({ runName: 'r', datasetItemId: 'no-such-item', traceId: 'trace-qa-1' }),
    { status: 404, message: /Dataset item not found/ },
  );
  await t.rejects(client.datasets.getRun('evals/qa', 'no-run'), { status: 404, message: /Dataset run not found/ });
});

t.test('scores: numeric on a trace, categorical on an observation, boolean on a session', async (t) => {
  const numeric = await client.scores.create({
    name: 'accuracy',
    value: 0.75,
    traceId: 'trace-qa-1',
    comment: 'close',
    metadata: { judge: 'human' },
  });
  t.match(numeric, { id: /\S/ });
  t.match(await client.scores.get(numeric.id), {
    name: 'accuracy',
    dataType: 'NUMERIC',
    value: 0.75,
    traceId: 'trace-qa-1',
    comment: 'close',
    metadata: { judge: 'human' },
    source: 'API',
  });

  const categorical = await client.scores.create({
    name: 'tone',
    value: 'friendly',
    traceId: 'trace-qa-1',
    observationId: 'obs-qa-1',
  });
  t.match(await client.scores.get(categorical.id), {
    dataType: 'CATEGORICAL',
    stringValue: 'friendly',
    observationId: 'obs-qa-1',
  });

  const when = new Date('2026-01-02T03:04:05.000Z');
  const boolean = await client.scores.create({
    id: 'score-bool-1',
    name: 'resolved',
    value: true,
    sessionId: 'session-qa',
    timestamp: when,
  });
  t.equal(boolean.id, 'score-bool-1');
  t.match(await client.scores.get('score-bool-1'), {
    dataType: 'BOOLEAN',
    value: 1,
    stringValue: 'True',
    sessionId: 'session-qa',
    traceId: null,
    timestamp: when.toISOString(),
  });
  await client.scores.create({ id: 'score-bool-1', name: 'resolved', value: false, sessionId: 'session-qa' });
  t.match(await client.scores.get('score-bool-1'), { value: 0, stringValue: 'False' }, 'an id upserts');

  const trace = await readPublic(svc, '/api/public/traces/trace-qa-1');
  t.same(
    trace.scores.map((s: { id: string }) => s.id).sort(),
    [numeric.id, categorical.id].sort(),
    'the trace shows its scores',
  );
});

t.test('scores with a score config take its name and must fit its range', async (t) => {
  const config = await sendPublic(svc, 'POST', '/api/public/score-configs', {
    name: 'helpfulness',
    dataType: 'NUMERIC',
    minValue: 0,
    maxValue: 5,
  });
  t.equal(config.status, 200);
  const scored = await client.scores.create({
    name: 'ignored',
    value: 4,
    traceId: 'trace-qa-1',
    configId: config.body.id,
  });
  t.match(await client.scores.get(scored.id), { name: 'helpfulness', configId: config.body.id, value: 4 });
  await t.rejects(client.scores.create({ name: 'x', value: 9, traceId: 'trace-qa-1', configId: config.body.id }), {
    name: 'SvcApiError',
    status: 400,
    message: /value: must be at most 5, the score config's maxValue/,
  });
  await t.rejects(client.scores.create({ name: 'x', value: 1 }), { status: 400, message: /exactly one target/ });
});

t.test('a wrong key pair is a 401 on every resource', async (t) => {
  const bad = new SvcClient({ ...svc.options, secretKey: 'sk-svc-not-it' });
  await t.rejects(bad.datasets.get('evals/qa'), { name: 'SvcApiError', status: 401 });
  await t.rejects(bad.scores.create({ name: 'x', value: 1, traceId: 't' }), { name: 'SvcApiError', status: 401 });
  await t.rejects(bad.prompts.get('any'), { name: 'SvcApiError', status: 401 });
});
