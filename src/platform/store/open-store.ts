import { resolve } from 'node:path';
import type { GatewayConfig } from '../config/types.ts';
import { openDatabase, type Database } from './database.ts';
import { migrate } from './migrate.ts';

/** Opens the configured store (Postgres, or embedded PGlite under data_dir) and applies pending migrations. */
export async function openStore(config: GatewayConfig, baseDir: string): Promise<Database> {
  const db = await openDatabase({
    postgresUrl: config.store.postgres_url,
    dataDir: resolve(baseDir, config.store.data_dir),
  });
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return db;
}
