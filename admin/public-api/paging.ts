// Langfuse page pagination: query `page` (from 1) and `limit`, response `meta: { page, limit, totalItems, totalPages }`.
// The bounds live in each route's query schema (schemas/api/public-*-query.json).

export interface PageQuery {
  page: number;
  limit: number;
}

export interface PageMeta {
  page: number;
  limit: number;
  totalItems: number;
  totalPages: number;
}

export const pageOffset = (q: PageQuery): number => (q.page - 1) * q.limit;

export const pageMeta = (q: PageQuery, totalItems: number): PageMeta => ({
  page: q.page,
  limit: q.limit,
  totalItems,
  totalPages: Math.ceil(totalItems / q.limit),
});
