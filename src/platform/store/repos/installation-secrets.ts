// The installation's generated secrets (table `installation_secrets`): one value per name, written once.
import type { Queryable } from '../database.ts';

/** The value stored under `name`; `candidate` is stored first when there is none (of racing writers, the first wins). */
export async function installationSecret(db: Queryable, name: string, candidate: string): Promise<string> {
  await db.query('INSERT INTO installation_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    candidate,
  ]);
  const r = await db.query<{ value: string }>('SELECT value FROM installation_secrets WHERE name = $1', [name]);
  return r.rows[0].value;
}
