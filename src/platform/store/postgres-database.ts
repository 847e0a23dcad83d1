import pg from 'pg';
import type { Database, Queryable, QueryOptions, QueryResult } from './database.ts';

/** The SET LOCAL assignments a query's options stand for. */
function settingsOf(options: QueryOptions | undefined): string[] {
  const settings: string[] = [];
  if (options?.statementTimeoutMs !== undefined)
    settings.push(`statement_timeout = ${Math.max(1, Math.round(options.statementTimeoutMs))}`);
  if (options?.indexOrder) settings.push('enable_bitmapscan = off', 'enable_sort = off');
  if (options?.jit === false) settings.push('jit = off');
  if (options?.parallel === false) settings.push('max_parallel_workers_per_gather = 0');
  return settings;
}

const resultOf = <R>(result: pg.QueryResult): QueryResult<R> => ({
  rows: result.rows as R[],
  rowCount: result.rowCount ?? 0,
});

const over = (client: pg.Pool | pg.PoolClient): Queryable => ({
  async query<R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    return resultOf<R>(await client.query(sql, params as unknown[] | undefined));
  },
  async exec(sql: string) {
    await client.query(sql);
  },
});

/** Runs `work` on a connection of its own; one lost meanwhile goes back to the pool to be discarded, not reused. */
async function onConnection<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient, isLost: () => boolean) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // A connection lost while checked out emits 'error' on the client; unheard, it would end the process.
  let lost: Error | undefined;
  const onError = (err: Error) => {
    lost = err;
  };
  client.on('error', onError);
  try {
    return await work(client, () => lost !== undefined);
  } finally {
    client.off('error', onError);
    // Passing the error makes the pool discard the connection instead of reusing it.
    client.release(lost);
  }
}

/**
 * The query in a transaction of its own that sets `settings` with SET LOCAL (they end with it, so the connection goes
 * back with its defaults), its three statements sent together. A failed query makes the COMMIT roll back.
 */
const querySetting = <R>(pool: pg.Pool, settings: string[], sql: string, params?: readonly unknown[]) =>
  onConnection(pool, async (client) => {
    const [begin, query, commit] = await Promise.allSettled([
      client.query(`BEGIN; ${settings.map((setting) => `SET LOCAL ${setting}`).join('; ')}`),
      client.query(sql, params as unknown[] | undefined),
      client.query('COMMIT'),
    ]);
    // The first failure is the cause: a lost connection fails all three, a cancelled query the query alone.
    if (begin.status === 'rejected') throw begin.reason;
    if (query.status === 'rejected') throw query.reason;
    if (commit.status === 'rejected') throw commit.reason;
    return resultOf<R>(query.value);
  });

export function openPostgres(url: string): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // A database that is down must fail fast, not hang the caller: the trace writer retries on its own schedule.
    connectionTimeoutMillis: 3_000,
    query_timeout: 15_000,
    idleTimeoutMillis: 30_000,
    // Each query is written at once, without waiting for the answer to the one before (node-postgres pipelining):
    // a query with settings goes out with its BEGIN and SET LOCAL before it and its COMMIT after, in one round trip.
    pipeline: true,
  });
  // An idle client losing its connection (database restart) emits here; the pool replaces it on next use.
  pool.on('error', () => {});
  const base = over(pool);
  return {
    kind: 'postgres',
    query(sql, params, options) {
      const settings = settingsOf(options);
      return settings.length === 0 ? base.query(sql, params) : querySetting(pool, settings, sql, params);
    },
    exec: base.exec,
    transaction: (work) =>
      onConnection(pool, async (client, isLost) => {
        try {
          await client.query('BEGIN');
          const result = await work(over(client));
          await client.query('COMMIT');
          return result;
        } catch (err) {
          if (!isLost()) await client.query('ROLLBACK').catch(() => {});
          throw err;
        }
      }),
    close: () => pool.end(),
  };
}
