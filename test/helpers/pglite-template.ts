// A migrated embedded store to copy: creating a PGlite cluster (initdb in WebAssembly) and migrating it costs seconds
// of CPU, copying its 40 MB costs a tenth of one. Made once per set of migrations and PGlite version by the first test
// that needs it, kept under node_modules/.cache like other build caches; every test still gets a store of its own.
// Tests of a fresh store's first start (the CLI's migrate, embedded-store.test.ts) do not use it.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/platform/store/database.ts';
import { loadMigrations, migrate } from '../../src/platform/store/migrate.ts';
import { ROOT } from './cli.ts';

const CACHE = join(ROOT, 'node_modules', '.cache', 'svc-test');

function templateDir(): string {
  const pglite = JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'));
  const hash = createHash('sha256').update(pglite.version);
  for (const m of loadMigrations()) hash.update(m.name).update(m.sql);
  return join(CACHE, `pglite-${hash.digest('hex').slice(0, 16)}`);
}

async function ensureTemplate(dir: string): Promise<void> {
  if (existsSync(join(dir, 'pglite', 'PG_VERSION'))) return;
  mkdirSync(CACHE, { recursive: true });
  const building = mkdtempSync(`${dir}.building-`);
  const db = await openDatabase({ dataDir: building });
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  try {
    renameSync(building, dir);
  } catch {
    // Another test process finished the same template first: its copy is as good as ours.
    rmSync(building, { recursive: true, force: true });
  }
}

/** Puts a migrated, empty embedded store under `dataDir` (as `dataDir/pglite`, where the store opens it). */
export async function seedMigratedPglite(dataDir: string): Promise<void> {
  const template = templateDir();
  await ensureTemplate(template);
  cpSync(join(template, 'pglite'), join(dataDir, 'pglite'), { recursive: true });
}
