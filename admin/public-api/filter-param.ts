// The `filter` query parameter of the trace and observation lists. As in Langfuse, it takes precedence over the
// simple query parameters: a simple parameter is dropped when the filter names its column; the rest are ANDed.
import {
  FilterError,
  parseFilter,
  type FilterColumn,
  type FilterCondition,
} from '../../src/platform/store/repos/structured-filter.ts';
import { invalidRequestData } from './public-error.ts';

export interface ReadFilter<Q> {
  conditions: FilterCondition[] | undefined;
  /** The query without the simple parameters the filter replaces. */
  query: Q;
}

/**
 * Reads `query.filter`; `replaces` names, for each simple parameter, the filter column it stands for. A filter that
 * cannot be read answers 400 `Invalid request data` with the reason under `filter`.
 */
export function readFilterParam<Q extends { filter?: string }>(
  query: Q,
  columns: Record<string, FilterColumn>,
  replaces: Partial<Record<keyof Q, string>>,
): ReadFilter<Omit<Q, 'filter'>> {
  const { filter, ...rest } = query;
  // An empty parameter (`?filter=`) is as if absent, as in Langfuse.
  if (filter === undefined || filter === '') return { conditions: undefined, query: rest };
  let conditions: FilterCondition[];
  try {
    conditions = parseFilter(filter, columns);
  } catch (err) {
    if (err instanceof FilterError) throw invalidRequestData([{ path: ['filter'], message: err.message }]);
    throw err;
  }
  const named = new Set(conditions.map((c) => c.column));
  const kept = { ...rest } as Record<string, unknown>;
  for (const [param, column] of Object.entries(replaces)) if (named.has(column as string)) delete kept[param];
  return { conditions, query: kept as Omit<Q, 'filter'> };
}
