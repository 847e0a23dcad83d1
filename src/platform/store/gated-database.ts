// The store as the service's parts use it while it may not be prepared yet (a PostgreSQL store unreachable at start):
// until `isOpen()`, every call rejects with StoreUnavailableError, which the writers take for an outage (spill and
// retry), the admin surfaces answer with a 503 in their envelopes, and the gateway with 503 gateway_config_stale.
// Nothing reads or writes tables that migrations may not have made yet.
import type { Database, QueryOptions, QueryResult, Queryable } from './database.ts';
import { StoreUnavailableError } from './store-unreachable.ts';

export function gatedDatabase(db: Database, isOpen: () => boolean): Database {
  const check = () => {
    if (!isOpen()) throw new StoreUnavailableError('the store has not been reached since this process started');
  };
  return {
    kind: db.kind,
    async query<R>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
      check();
      return db.query<R>(sql, params, options);
    },
    async exec(sql: string) {
      check();
      return db.exec(sql);
    },
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      check();
      return db.transaction(work);
    },
    close: () => db.close(),
  };
}
