// Store backends for tests: a fresh PostgreSQL database per use (dropped at teardown) or an embedded PGlite
// under a temp dir. The store suites run once per backend.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type Database, type Queryable } from '../../src/platform/store/database.ts';
import { migrate } from '../../src/platform/store/migrate.ts';
import { ensureOrganization, upsertProject } from '../../src/platform/store/repos/projects.ts';
import { seedMigratedPglite } from './pglite-template.ts';

export type StoreBackend = 'pglite' | 'postgres';
export const STORE_BACKENDS: readonly StoreBackend[] = ['pglite', 'postgres'];

/** The server the tests use; CI starts it (.ci/run). */
export const POSTGRES_ADMIN_URL = process.env.SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** Creates an empty database with a unique name and drops it when the test ends; returns its URL. */
export async function freshPostgresDatabase(t: Teardown): Promise<string> {
  const name = `svc_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  t.teardown(async () => {
    const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  });
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The `store` section of gateway.yaml for a backend (data_dir is set by startTestService). */
export async function storeSection(t: Teardown, backend: StoreBackend): Promise<{ postgres_url: string }> {
  return { postgres_url: backend === 'postgres' ? await freshPostgresDatabase(t) : '' };
}

/** A migrated database on the backend, closed (and removed) when the test ends. */
export async function testDatabase(t: Teardown, backend: StoreBackend): Promise<Database> {
  let db: Database;
  if (backend === 'postgres') db = await openDatabase({ postgresUrl: await freshPostgresDatabase(t), dataDir: '' });
  else {
    const dir = mkdtempSync(join(tmpdir(), 'svc-pglite-'));
    await seedMigratedPglite(dir);
    db = await openDatabase({ dataDir: dir });
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  }
  // Registered after the drop/remove above, so it runs first (teardowns run in reverse).
  t.teardown(() => db.close());
  await migrate(db);
  return db;
}

/** An organisation `org` and in it the project `projectId`, named P1, for tests that write rows of a project. */
export async function seedProject(db: Queryable, projectId: string): Promise<void> {
  await ensureOrganization(db, { id: 'org', name: 'Org' });
  await upsertProject(db, {
    id: projectId,
    organizationId: 'org',
    name: 'P1',
    maxKeyExpiryHours: 24,
    ingestionOnly: false,
  });
}
