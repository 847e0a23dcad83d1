// The official `langfuse` npm SDK v3 against the public API's datasets (docs/public-api.md
// "Datasets and score configs"; docs/langfuse-sdks.md): create a dataset with a folder name and its items, fetch it
// with its items, link traces and spans to a run, read the run back; the stored rows asserted.
import { Langfuse } from 'langfuse';
import t from 'tap';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { getDatasetItem } from '../../src/platform/store/repos/dataset-items.ts';
import { getDatasetByName } from '../../src/platform/store/repos/datasets.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';

const s = await startTestService(t, baseConfig());
const db = s.service.db;
const key = await createApiKey(db, {
  kind: 'project',
  organizationId: 'default',
  projectId: 'default',
  now: Date.now(),
});
const errors: unknown[] = [];
const langfuse = new Langfuse({ publicKey: key.publicKey, secretKey: key.secretKey, baseUrl: s.adminUrl, flushAt: 1 });
langfuse.on('error', (e: unknown) => errors.push(e));
t.teardown(() => langfuse.shutdownAsync());

const NAME = 'evals/capitals';

t.test('createDataset and createDatasetItem store the dataset and its items', async (t) => {
  const dataset = await langfuse.createDataset({
    name: NAME,
    description: 'capital cities',
    metadata: { owner: 'qa' },
  });
  t.match(dataset, { name: NAME, description: 'capital cities', metadata: { owner: 'qa' } });
  await langfuse.createDataset(NAME);
  t.match(
    await getDatasetByName(db, 'default', NAME),
    { description: 'capital cities', metadata: { owner: 'qa' } },
    'creating again by name keeps it',
  );

  const france = await langfuse.createDatasetItem({
    datasetName: NAME,
    id: 'fr',
    input: { country: 'France' },
    expectedOutput: 'Paris',
    metadata: { region: 'eu' },
  });
  t.match(france, { id: 'fr', datasetName: NAME, status: 'ACTIVE' });
  const japan = await langfuse.createDatasetItem({
    datasetName: NAME,
    input: { country: 'Japan' },
    expectedOutput: 'Tokyo',
  });
  t.match(await getDatasetItem(db, 'default', japan.id), {
    input: { country: 'Japan' },
    expectedOutput: 'Tokyo',
    datasetName: NAME,
  });
  await langfuse.createDatasetItem({ datasetName: NAME, id: 'fr', expectedOutput: 'Paris, France' });
  t.match(
    await getDatasetItem(db, 'default', 'fr'),
    { input: { country: 'France' }, expectedOutput: 'Paris, France', metadata: { region: 'eu' } },
    'upsert by id',
  );
  const fetched = await langfuse.getDatasetItem('fr');
  t.match(fetched, { id: 'fr', expectedOutput: 'Paris, France' });
});

t.test('getDataset pages through the items; item.link stores run items', async (t) => {
  for (let i = 0; i < 3; i++) await langfuse.createDatasetItem({ datasetName: NAME, input: { country: `c${i}` } });
  const dataset = await langfuse.getDataset(NAME, { fetchItemsPageSize: 2 });
  t.equal(dataset.name, NAME);
  t.equal(dataset.items.length, 5, 'every item, over three pages');
  t.same(new Set(dataset.items.map((i) => i.id)).size, 5);

  const links: { itemId: string; traceId: string; observationId?: string }[] = [];
  for (const item of dataset.items.filter((i) => i.id === 'fr' || (i.input as any)?.country === 'Japan')) {
    const trace = langfuse.trace({ name: `capital-of-${(item.input as any).country}` });
    const span = trace.span({ name: 'lookup' });
    span.end({ output: item.expectedOutput });
    if (item.id === 'fr') {
      await item.link(trace, 'run/2026-05', { description: 'first run', metadata: { model: 'demo' } });
      links.push({ itemId: item.id, traceId: trace.id });
    } else {
      await item.link(span, 'run/2026-05');
      links.push({ itemId: item.id, traceId: trace.id, observationId: span.id });
    }
  }
  await langfuse.flushAsync();
  t.same(errors, [], 'the SDK reported no error');

  const run = await langfuse.getDatasetRun({ datasetName: NAME, runName: 'run/2026-05' });
  t.match(run, { name: 'run/2026-05', description: 'first run', metadata: { model: 'demo' }, datasetName: NAME });
  const linked = run.datasetRunItems.map((i) => ({
    itemId: i.datasetItemId,
    traceId: i.traceId,
    ...(i.observationId ? { observationId: i.observationId } : {}),
  }));
  t.same(new Set(linked.map((l) => JSON.stringify(l))), new Set(links.map((l) => JSON.stringify(l))));

  const rows = await db.query<{ dataset_item_id: string; trace_id: string; observation_id: string | null }>(
    "SELECT ri.dataset_item_id, ri.trace_id, ri.observation_id FROM dataset_run_items ri JOIN dataset_runs r ON r.project_id = ri.project_id AND r.id = ri.dataset_run_id WHERE r.name = 'run/2026-05' ORDER BY ri.dataset_item_id",
  );
  t.equal(rows.rows.length, 2);
  t.match(
    rows.rows.find((r) => r.dataset_item_id === 'fr'),
    { trace_id: links.find((l) => l.itemId === 'fr')!.traceId, observation_id: null },
  );

  const runs = await langfuse.getDatasetRuns(NAME);
  t.same(
    runs.data.map((r) => r.name),
    ['run/2026-05'],
  );
});
