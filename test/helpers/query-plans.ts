// Query plans of the statements a piece of store code runs: each captured as it ran, then explained (FORMAT JSON) with
// the settings it ran with, and checks of the nodes a plan holds.
import type { Test } from 'tap';
import {
  withStatementTimeout,
  type Database,
  type Queryable,
  type QueryOptions,
} from '../../src/platform/store/database.ts';

export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

export interface Planned {
  sql: string;
  nodes: PlanNode[];
}

export const flatten = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(flatten)];

/** Runs `work` on a Queryable that records each statement, then explains each with the options it ran with. */
export async function plansOf(db: Database, work: (q: Queryable) => Promise<unknown>): Promise<Planned[]> {
  const reads = withStatementTimeout(db, 60_000);
  const ran: { sql: string; params?: readonly unknown[]; options?: QueryOptions }[] = [];
  await work({
    query: (sql, params, options) => {
      ran.push({ sql, params, options });
      return reads.query(sql, params, options);
    },
    exec: (sql) => reads.exec(sql),
  });
  const planned: Planned[] = [];
  for (const { sql, params, options } of ran) {
    if (sql.includes('pg_stats')) continue;
    // Explained with the settings it ran with, but not a probe's short time limit (planning alone may outlast it).
    const r = await reads.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params, {
      ...options,
      statementTimeoutMs: undefined,
    });
    planned.push({ sql, nodes: flatten(r.rows[0]['QUERY PLAN'][0].Plan) });
  }
  return planned;
}

export const indexesOf = (p: Planned) => p.nodes.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : []));
export const describe = (p: Planned) =>
  p.nodes.map((n) => `${n['Node Type']}${n['Index Name'] ? ` (${n['Index Name']})` : ''}`).join(' > ');

/** The statement whose SQL starts with `start` (after whitespace). */
export const lastStatement = (planned: Planned[], start: string): Planned => statement([...planned].reverse(), start);

export function statement(planned: Planned[], start: string): Planned {
  const found = planned.find((p) => p.sql.trimStart().startsWith(start));
  if (!found) throw new Error(`no statement starting ${start}: ${planned.map((p) => p.sql.slice(0, 60)).join(' | ')}`);
  return found;
}

/** The statement reads `index` in list order: an index scan on it, no sequential scan, no sort of every match. */
export function readsInOrder(t: Test, p: Planned, index: string, what: string) {
  const scans = p.nodes.filter((n) => n['Index Name'] === index);
  t.ok(
    scans.some((n) => n['Node Type'] === 'Index Scan' || n['Node Type'] === 'Index Only Scan'),
    `${what}: index scan on ${index} (${describe(p)})`,
  );
  t.notOk(
    p.nodes.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] !== 'agents'),
    `${what}: no sequential scan`,
  );
  t.notOk(
    p.nodes.some((n) => n['Node Type'] === 'Sort'),
    `${what}: no sort of the matching rows (incremental sorts of ties are fine)`,
  );
}
