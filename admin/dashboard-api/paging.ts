// Offset paging of dashboard lists: query `limit` (1–200, default 50) and `offset`, answer `pagination: {limit, offset, total}`.

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
