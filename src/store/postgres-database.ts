import pg from 'pg';
import type { Database, Queryable, QueryOptions, QueryResult } from './database.ts';

/** The SET LOCAL assignments a query's options stand for. */
function settingsOf(options: QueryOptions | undefined): string[] {
  const settings: string[] = [];
  if (options?.statementTimeoutMs !== undefined)
    settings.push(`statement_timeout = ${Math.max(1, Math.round(options.statementTimeoutMs))}`);
  if (options?.indexOrder) settings.push('enable_bitmapscan = off', 'enable_sort = off');
  if (options?.jit === false) settings.push('jit = off');
  return settings;
}

export function openPostgres(url: string): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // A database that is down must fail fast, not hang the caller: the trace writer retries on its own schedule.
    connectionTimeoutMillis: 3_000,
    query_timeout: 15_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection (database restart) emits here; the pool replaces it on next use.
  pool.on('error', () => {});
  const over = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const result = await client.query(sql, params as unknown[] | undefined);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  });
  const base = over(pool);
  const db: Database = {
    kind: 'postgres',
    query(sql, params, options) {
      const settings = settingsOf(options);
      if (settings.length === 0) return base.query(sql, params);
      // SET LOCAL ends with the transaction, so the pooled connection goes back with its defaults.
      return db.transaction(async (tx) => {
        await tx.exec(settings.map((setting) => `SET LOCAL ${setting}`).join('; '));
        return tx.query(sql, params);
      });
    },
    exec: base.exec,
    async transaction(work) {
      const client = await pool.connect();
      // A connection lost while checked out emits 'error' on the client; unheard, it would end the process.
      let lost: Error | undefined;
      const onError = (err: Error) => {
        lost = err;
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const result = await work(over(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        if (!lost) await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.off('error', onError);
        // Passing the error makes the pool discard the connection instead of reusing it.
        client.release(lost);
      }
    },
    close: () => pool.end(),
  };
  return db;
}
