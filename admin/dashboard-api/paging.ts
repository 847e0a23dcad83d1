// Offset paging of dashboard lists: query `limit` (1–200, default 50) and `offset`, answer `pagination: {limit,
// offset, total}` (and `totalIsLowerBound` for the lists whose totals are counted ahead).
import { COUNT_AHEAD } from '../../src/platform/store/repos/page.ts';

export interface PagingQuery {
  limit: number;
  offset: number;
}

export const PAGING_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    offset: { type: 'integer', minimum: 0, default: 0 },
  },
} as const;

export const pagination = (q: PagingQuery, total: number) => ({ limit: q.limit, offset: q.offset, total });

/**
 * Paging of a list whose total is counted only up to `offset + COUNT_AHEAD` (countAhead, src/platform/store/repos/page.ts):
 * `totalIsLowerBound` says the count reached that bound, so at least `total` rows match.
 */
export const countedAheadPagination = (q: PagingQuery, total: number) => ({
  ...pagination(q, total),
  totalIsLowerBound: total >= q.offset + COUNT_AHEAD,
});
