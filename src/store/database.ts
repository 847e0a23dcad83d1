// One SQL interface over PostgreSQL (`pg`) and embedded PGlite, so repositories and migrations run unchanged on both.
// Conventions the repositories follow so both drivers agree: JSON goes in as text cast with `::text::jsonb`,
// timestamps as ISO strings cast with `::timestamptz`, counts and bigints come back through Number().

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

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
