// The key that seals LLM connection secrets: the SHA-256 of gateway.yaml's `store.encryption_key` when set, else a
// random key generated once per store and kept in table `installation_secrets`. The generated key lives in the same
// database as what it seals, so it only guards against leaks of single values (logs, API answers, exports of the
// table); set `store.encryption_key` to keep the key out of the database and its backups.
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../store/database.ts';
import { installationSecret } from '../store/repos/installation-secrets.ts';
import { secretBox, type SecretBox } from './secret-box.ts';

const NAME = 'llm_connections_key';
const generated = new WeakMap<Queryable, Promise<Buffer>>();

async function storedKey(db: Queryable): Promise<Buffer> {
  // Replicas racing on the first use agree: the first insert wins and everyone reads it back.
  return Buffer.from(await installationSecret(db, NAME, randomBytes(32).toString('base64')), 'base64');
}

export async function connectionSecretsBox(db: Queryable, configuredKey: string): Promise<SecretBox> {
  if (configuredKey !== '') return secretBox(createHash('sha256').update(configuredKey).digest());
  let key = generated.get(db);
  if (!key) {
    key = storedKey(db);
    key.catch(() => generated.delete(db));
    generated.set(db, key);
  }
  return secretBox(await key);
}
