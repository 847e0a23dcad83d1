// One page of a list query and the count of the rows it matches (Langfuse page paging, admin/public-api/paging.ts):
// every row for the small lists of selectPage, up to a bound past the page for the lists that grow with traffic.
import type { Queryable, QueryOptions } from '../database.ts';
import { num } from './rows.ts';

export interface PageWindow {
  limit: number;
  offset: number;
}

export interface PageQuery {
  /** The select list, e.g. `i.*, d.name AS dataset_name`. */
  columns: string;
  /** The FROM clause with its joins. */
  from: string;
  where: string;
  params: readonly unknown[];
  orderBy: string;
}

/**
 * How far past a page the lists of traces, observations, sessions and scores count their totals: counting every row
 * a filter matches costs seconds at millions of traces; counting this many costs about what reading 20 pages of 50
 * does (docs/decisions.md, "List queries: time limits and totals").
 */
export const COUNT_AHEAD = 1000;

export interface ListQuery {
  /** `FROM … WHERE …` of the list. */
  matching: string;
  params: readonly unknown[];
  /** The list's order: counting along it takes the page query's own path through the indexes, stopping at the bound. */
  orderBy: string;
  options?: QueryOptions;
}

/**
 * The rows the list matches, counted up to `page.offset + COUNT_AHEAD`: exact below that bound, the bound itself (a
 * lower bound of the total) at it. A client paging by the total thus finds another page while rows remain, and the
 * total is exact once the end is within reach.
 */
export async function countAhead(db: Queryable, q: ListQuery, page: PageWindow): Promise<number> {
  const bound = Number(page.offset) + COUNT_AHEAD;
  const r = await db.query<{ n: unknown }>(
    `SELECT count(*) AS n FROM (SELECT 1 ${q.matching} ORDER BY ${q.orderBy} LIMIT ${bound}) c`,
    q.params,
    q.options,
  );
  return num(r.rows[0].n);
}

export async function selectPage<T>(
  db: Queryable,
  q: PageQuery,
  page: PageWindow,
  map: (row: Record<string, any>) => T,
): Promise<{ data: T[]; total: number }> {
  const total = await db.query<{ n: unknown }>(`SELECT count(*) AS n FROM ${q.from} WHERE ${q.where}`, q.params);
  const rows = await db.query(
    `SELECT ${q.columns} FROM ${q.from} WHERE ${q.where} ORDER BY ${q.orderBy} LIMIT ${Number(page.limit)} OFFSET ${Number(page.offset)}`,
    q.params,
  );
  return { data: rows.rows.map(map), total: num(total.rows[0].n) };
}
