// Numbered SQL migrations (src/platform/store/sql/NNN_name.sql), applied in order, each once, under an advisory lock so
// replicas starting together on one Postgres do not race.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The sql folder sits beside this module in the sources; the build output finds it back in the package root. */
function sqlDirectory(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return here.includes(`${join('dist', 'src')}`)
    ? here.replace(join('dist', 'src'), 'src') + '/sql'
    : join(here, 'sql');
}

export function loadMigrations(dir = sqlDirectory()): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({
      version: Number(f.slice(0, 3)),
      name: f.replace(/\.sql$/, ''),
      sql: readFileSync(join(dir, f), 'utf8'),
    }));
}

const LOCK_ID = 7_302_114_515; // arbitrary, fixed: svc's migration lock

/** Applies the migrations not yet recorded; returns the names applied now. */
export async function migrate(db: Database, migrations = loadMigrations()): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set(
      (await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => Number(r.version)),
    );
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.name);
    }
    return applied;
  });
}
