// One page of a list query and the count of every row it matches (Langfuse page paging, admin/public-api/paging.ts).
import type { Queryable } from '../database.ts';
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
