// Paging through a list larger than its counted total (src/platform/store/repos/page.ts COUNT_AHEAD; docs/public-api.md
// "Totals"): the Langfuse JS client, paging by `meta` as the Langfuse SDKs do (on to the next page until
// `totalPages <= page`), sees every trace exactly once while traces are ingested between its pages; a REST client
// paging while `hasMore` too. Both backends.
import { LangfuseClient } from '@langfuse/client';
import t from 'tap';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { COUNT_AHEAD } from '../../src/platform/store/repos/page.ts';
import { generatedTraceId, generateTraces } from '../helpers/generated-traces.ts';
import { bearer, call } from '../helpers/rest-api.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const PROJECT = 'default';
const SEEDED = 2500;
const LIMIT = 100;
/** The seeded traces start in the first hour of this day; traces ingested while paging start months later. */
const DAY = '2026-01-01';
const seededIds = Array.from({ length: SEEDED }, (_, i) => generatedTraceId('seed', i + 1));

interface Meta {
  page: number;
  limit: number;
  totalItems: number;
  totalPages: number;
}

/** How a Langfuse client reads every page: the next one until `meta.totalPages <= page`. */
async function pageByMeta(
  list: (page: number) => Promise<{ data: { id: string }[]; meta: Meta }>,
  between: () => Promise<void>,
) {
  const seen: string[] = [];
  const metas: Meta[] = [];
  for (let page = 1; page <= 1000; page++) {
    const { data, meta } = await list(page);
    seen.push(...data.map((trace) => trace.id));
    metas.push(meta);
    if (meta.totalPages <= page) break;
    await between();
  }
  return { seen, metas };
}

const duplicates = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);

for (const backend of STORE_BACKENDS) {
  t.test(`paging to the end on ${backend}`, async (t) => {
    const s = await startTestService(t, baseConfig({ projects: [{ id: PROJECT, name: 'Default' }] }), { backend });
    const db = s.service.db;
    const key = await createApiKey(db, {
      kind: 'project',
      organizationId: 'default',
      projectId: PROJECT,
      now: Date.now(),
    });
    await generateTraces(db, { projectId: PROJECT, prefix: 'seed', count: SEEDED, from: `${DAY}T00:00:00Z` });
    const langfuse = new LangfuseClient({ publicKey: key.publicKey, secretKey: key.secretKey, baseUrl: s.adminUrl });
    /** Ids of the traces ingested so far, oldest first. */
    const live: string[] = [];
    /** Three new traces through the ingestion API, newer than every trace before them. */
    const ingestThree = async () => {
      const events = [1, 2, 3].map((k) => {
        const n = live.length + k;
        const at = new Date(Date.parse('2026-06-01T00:00:00Z') + n * 1000).toISOString();
        return {
          id: `ev-live-${n}`,
          type: 'trace-create' as const,
          timestamp: at,
          body: { id: `live-${n}`, timestamp: at },
        };
      });
      const r = await langfuse.api.ingestion.batch({ batch: events });
      t.same(r.errors, [], 'ingested');
      live.push(...events.map((e) => e.body.id));
    };

    t.test('newest first within a time window, traces arriving outside it', async (t) => {
      const { seen, metas } = await pageByMeta(
        (page) =>
          langfuse.api.trace.list({
            page,
            limit: LIMIT,
            fromTimestamp: `${DAY}T00:00:00Z`,
            toTimestamp: `${DAY}T23:59:59Z`,
          }),
        ingestThree,
      );
      t.same(duplicates(seen), [], 'no trace twice');
      t.same(seen, [...seededIds].reverse(), 'every seeded trace, newest first');
      t.equal(metas[0].totalItems, COUNT_AHEAD, `the first page counts ${COUNT_AHEAD} traces ahead, a lower bound`);
      t.equal(metas[0].totalPages, COUNT_AHEAD / LIMIT);
      t.same(
        metas.at(-1),
        { page: SEEDED / LIMIT, limit: LIMIT, totalItems: SEEDED, totalPages: SEEDED / LIMIT },
        'exact at the end',
      );
      t.ok(live.length > 0, 'traces arrived while paging');
    });

    t.test('oldest first, traces arriving at the end while paging', async (t) => {
      const before = live.length;
      const { seen } = await pageByMeta(
        (page) => langfuse.api.trace.list({ page, limit: LIMIT, orderBy: 'timestamp.asc' }),
        ingestThree,
      );
      t.ok(live.length > before, 'traces arrived while paging');
      t.same(duplicates(seen), [], 'no trace twice');
      t.same(seen, [...seededIds, ...live], 'every trace, the ones ingested while paging last, in time order');
    });

    t.test('REST: by offset while hasMore', async (t) => {
      const seen: string[] = [];
      const totals: number[] = [];
      for (let offset = 0; offset < 10 * SEEDED; offset += 300) {
        const r = await call(s.adminUrl, 'GET', `/traces?limit=300&offset=${offset}&startDate=${DAY}&endDate=${DAY}`, {
          auth: bearer(key),
        });
        t.equal(r.status, 200);
        seen.push(...r.body.data.map((trace: { id: string }) => trace.id));
        totals.push(r.body.pagination.total);
        if (!r.body.pagination.hasMore) break;
      }
      t.same(seen, [...seededIds].reverse(), 'every seeded trace once, newest first');
      t.equal(totals[0], COUNT_AHEAD, 'the first total is the bound');
      t.equal(totals.at(-1), SEEDED, 'the last is exact');
    });
  });
}
