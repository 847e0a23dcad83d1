// One SQL interface over PostgreSQL (`pg`) and embedded PGlite, so repositories and migrations run unchanged on both.
// Conventions the repositories follow so both drivers agree: JSON goes in as text cast with `::text::jsonb`,
// timestamps as ISO strings cast with `::timestamptz`, counts and bigints come back through Number().

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  query<R = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/**
 * Settings of one statement, for the PostgreSQL store's queries outside a transaction (each then runs in a short
 * transaction of its own that sets them with SET LOCAL). Ignored inside a transaction, and by the embedded store.
 */
export interface QueryOptions {
  /** Cancels the statement once it has run this long (statement_timeout; SQLSTATE 57014). */
  statementTimeoutMs?: number;
  /**
   * Plans the statement to read an index in the order of its ORDER BY and stop at its LIMIT: no bitmap scans, and a
   * full sort only where no index gives the order (enable_bitmapscan and enable_sort off). Without statistics (a
   * fresh store) the planner takes every filter for rare and would rather collect every match and sort it, which at
   * millions of rows takes seconds. For lists whose filters each have an index in list order, or no index at all.
   */
  indexOrder?: boolean;
  /**
   * false: no JIT compilation (jit off). An interactive read then never spends tens of milliseconds compiling a plan
   * whose estimated cost is high only because the planner, without statistics, misjudged a few rows for many.
   */
  jit?: boolean;
  /**
   * false: no parallel workers. A list stops at its page, and on a small server the workers' start and merge cost
   * more than they share (a metadata list at 2 M traces: 110 ms with two workers, 48 without); nor may one heavy read
   * take every core from the writers and the gateway.
   */
  parallel?: boolean;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A query of `withStatementTimeout` that ran out of its time. */
export class StatementTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number, cause: unknown) {
    super(`the statement was cancelled after ${timeoutMs} ms`, { cause });
    this.name = 'StatementTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** PostgreSQL's query_canceled, which a statement_timeout raises. */
const QUERY_CANCELED = '57014';

/** A statement cancelled by its time limit, as the store raised it or as withStatementTimeout rethrew it. */
export const isQueryCanceled = (err: unknown): boolean =>
  err instanceof StatementTimeoutError || (err as { code?: unknown } | null)?.code === QUERY_CANCELED;

/**
 * `db` for the admin surfaces' reads: each query limited to `timeoutMs` (store.query_timeout_ms), without JIT or
 * parallel workers. A query
 * cancelled by the limit throws StatementTimeoutError. Writers and the gateway use `db` itself, unlimited.
 */
export const withStatementTimeout = (db: Database, timeoutMs: number): Queryable => ({
  async query<R>(sql: string, params?: readonly unknown[], options?: QueryOptions) {
    try {
      // A caller's shorter limit (a probe) wins over the surface's.
      const limit = Math.min(timeoutMs, options?.statementTimeoutMs ?? timeoutMs);
      return await db.query<R>(sql, params, { ...options, statementTimeoutMs: limit, jit: false, parallel: false });
    } catch (err) {
      throw isQueryCanceled(err) ? new StatementTimeoutError(timeoutMs, err) : err;
    }
  },
  exec: (sql: string) => db.exec(sql),
});

export interface StoreLocation {
  /** Empty or absent: embedded PGlite under `dataDir`. */
  postgresUrl?: string;
  dataDir: string;
}

export async function openDatabase(location: StoreLocation): Promise<Database> {
  if (location.postgresUrl) {
    const { openPostgres } = await import('./postgres-database.ts');
    return openPostgres(location.postgresUrl);
  }
  const { openPglite } = await import('./pglite-database.ts');
  return openPglite(location.dataDir);
}
