// A PostgreSQL database of a bench's own, created on the server at `adminUrl` and dropped with `drop()`.
import pg from 'pg';
import { openDatabase, type Database } from '../src/platform/store/database.ts';

export interface ScratchDatabase {
  db: Database;
  /** Its connection URL, for clients of the bench's own. */
  url: string;
  drop(): Promise<void>;
}

export async function scratchPostgres(adminUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ postgresUrl: url.toString(), dataDir: '' });
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
