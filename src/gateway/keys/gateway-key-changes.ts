// The audited changes of stored gateway keys after minting (mint-key.ts): block and unblock, rotation with a grace
// window, deletion. Each change is stored with its audit row in one transaction; the caller then refreshes its key
// cache so this process applies it at once.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../../platform/store/database.ts';
import { writeProjectAudit } from '../../platform/store/repos/audit-log.ts';
import {
  deleteGatewayKey,
  rotateGatewayKey,
  setGatewayKeyBlocked,
  type StoredGatewayKey,
} from '../../platform/store/repos/gateway-keys.ts';
import type { Project } from '../../platform/store/repos/projects.ts';
import { generateKey } from './key-store.ts';
import { hashKey } from '../../plugin-api/services.ts';

type ProjectRef = Pick<Project, 'id' | 'organizationId'>;

export async function setKeyBlocked(
  db: Database,
  project: ProjectRef,
  key: StoredGatewayKey,
  blocked: boolean,
  by: { actor: string },
): Promise<StoredGatewayKey> {
  return db.transaction(async (tx) => {
    const changed = await setGatewayKeyBlocked(tx, project.id, key.id, blocked);
    await writeProjectAudit(tx, project, by.actor, {
      action: blocked ? 'gateway_key.block' : 'gateway_key.unblock',
      resourceType: 'gateway_key',
      resourceId: key.id,
      details: { alias: key.alias },
    });
    return changed!;
  });
}

export interface RotatedKey {
  /** The key under its id and alias, with the new plaintext's hash. */
  key: StoredGatewayKey;
  /** The row that keeps the old plaintext working until the grace window ends. */
  grace: StoredGatewayKey;
  /** The new plaintext: never stored and never available again. */
  plaintext: string;
}

/** Gives the key a new plaintext; the old one keeps working for `graceHours` from `now`. */
export async function rotateKey(
  db: Database,
  project: ProjectRef,
  key: StoredGatewayKey,
  rotation: { graceHours: number; now: number },
  by: { actor: string },
): Promise<RotatedKey> {
  const plaintext = generateKey();
  const { graceHours } = rotation;
  return db.transaction(async (tx) => {
    const rotated = await rotateGatewayKey(tx, project.id, key.id, {
      keySha256: hashKey(plaintext).toString('hex'),
      graceId: randomUUID(),
      // The alias stays with the key; the old plaintext's row gets a derived one (aliases are unique per project).
      graceAlias: `${key.alias}.rotated-${randomBytes(4).toString('hex')}`,
      rotatedAt: new Date(rotation.now).toISOString(),
      graceHours,
    });
    await writeProjectAudit(tx, project, by.actor, {
      action: 'gateway_key.rotate',
      resourceType: 'gateway_key',
      resourceId: key.id,
      details: { alias: key.alias, graceHours, previousKeyId: rotated!.grace.id },
    });
    return { ...rotated!, plaintext };
  });
}

export async function removeKey(
  db: Database,
  project: ProjectRef,
  key: StoredGatewayKey,
  by: { actor: string },
): Promise<void> {
  await db.transaction(async (tx) => {
    await deleteGatewayKey(tx, project.id, key.id);
    await writeProjectAudit(tx, project, by.actor, {
      action: 'gateway_key.delete',
      resourceType: 'gateway_key',
      resourceId: key.id,
      details: { alias: key.alias },
    });
  });
}
