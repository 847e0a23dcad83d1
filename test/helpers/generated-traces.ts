// Traces generated in SQL (generate_series), for tests that need thousands of them quickly: trace i of a project has
// id `<prefix>-<i>`, starts `i` seconds after `from`, and carries values that repeat with i, so that each list filter
// has a common value and a rare one. Each trace has two spans and a generation (observations `<id>-1` … `-3`) and
// one score. Rows are written as ingestion writes them; no ANALYZE runs, as on a fresh store.
import type { Queryable } from '../../src/platform/store/database.ts';

export interface GeneratedTraces {
  projectId: string;
  /** How many traces; trace ids run from 1 to count. */
  count: number;
  /** Start time of trace 0 (trace i starts i seconds later). */
  from: string;
  prefix?: string;
  /** First trace number (to add more traces after an earlier call). */
  first?: number;
}

export const generatedTraceId = (prefix: string, i: number) => `${prefix}-${i}`;
/** A tag and a metadata customer only trace 7 carries, for rare-value filters. */
export const RARE = { tag: 'rare-tag', customer: 'rare-customer' } as const;

/**
 * Trace i: name `name-<i % 10>`, user `user-<i % 100>`, session `<prefix>-session-<i / 5>`, tag `tag-<i % 5>`,
 * metadata `{customer: customer-<i % 20>, tier}`, environment `staging` for every tenth, else `production`.
 */
export async function generateTraces(db: Queryable, g: GeneratedTraces): Promise<void> {
  const prefix = g.prefix ?? 'gen';
  const first = g.first ?? 1;
  const params = [g.projectId, prefix, first, first + g.count - 1, g.from];
  await db.query(
    `INSERT INTO traces (project_id, id, name, status, start_time, end_time, input, output, metadata, tags, user_id,
       session_id, source, environment)
     SELECT $1, $2 || '-' || i, 'name-' || (i % 10), 'completed', $5::timestamptz + i * interval '1 second',
       $5::timestamptz + i * interval '1 second' + interval '800 ms', '{"q":"hello"}'::jsonb, '"hi"'::jsonb,
       jsonb_build_object('customer', CASE WHEN i = 7 THEN '${RARE.customer}' ELSE 'customer-' || (i % 20) END,
         'tier', (ARRAY['free','pro'])[1 + i % 2]),
       CASE WHEN i = 7 THEN '{"${RARE.tag}": ""}'::jsonb ELSE jsonb_build_object('tag-' || (i % 5), '') END,
       'user-' || (i % 100), $2 || '-session-' || (i / 5), 'ingestion',
       CASE WHEN i % 10 = 0 THEN 'staging' ELSE 'production' END
     FROM generate_series($3::int, $4::int) AS i`,
    params,
  );
  await db.query(
    `INSERT INTO observations (project_id, id, trace_id, parent_observation_id, type, name, start_time, end_time,
       model, usage_details, total_tokens, total_cost, environment)
     SELECT $1, $2 || '-' || i || '-' || k, $2 || '-' || i, CASE WHEN k > 1 THEN $2 || '-' || i || '-1' END,
       CASE WHEN k = 3 THEN 'GENERATION' ELSE 'SPAN' END, 'step-' || k,
       $5::timestamptz + i * interval '1 second' + k * interval '10.5 ms', $5::timestamptz + i * interval '1 second' + interval '700 ms',
       CASE WHEN k = 3 THEN 'gpt-4o' END, CASE WHEN k = 3 THEN '{"input": 10, "output": 20}'::jsonb ELSE '{}'::jsonb END,
       CASE WHEN k = 3 THEN 30 ELSE 0 END, CASE WHEN k = 3 THEN 0.0001 ELSE 0 END,
       CASE WHEN i % 10 = 0 THEN 'staging' ELSE 'production' END
     FROM generate_series($3::int, $4::int) AS i, generate_series(1, 3) AS k`,
    params,
  );
  await db.query(
    `INSERT INTO scores (project_id, id, trace_id, name, data_type, value, source, environment, timestamp)
     SELECT $1, $2 || '-' || i || '-score', $2 || '-' || i, 'quality', 'NUMERIC', (i % 5) / 4.0, 'API', 'production',
       $5::timestamptz + i * interval '1 second' + interval '1 s'
     FROM generate_series($3::int, $4::int) AS i`,
    params,
  );
}

/**
 * Holds off autovacuum on the trace tables (it would gather statistics within seconds: the store stays as fresh as
 * right after a bulk load) and creates the project `projectId` in an organisation `o`.
 */
export async function freshStoreWithProject(db: Queryable, projectId: string): Promise<void> {
  await db.query(`ALTER TABLE traces SET (autovacuum_enabled = off)`);
  await db.query(`ALTER TABLE observations SET (autovacuum_enabled = off)`);
  await db.query(`ALTER TABLE scores SET (autovacuum_enabled = off)`);
  await db.query(`INSERT INTO organizations (id, name) VALUES ('o', 'o')`);
  await db.query(`INSERT INTO projects (id, organization_id, name) VALUES ($1, 'o', 'p')`, [projectId]);
}
