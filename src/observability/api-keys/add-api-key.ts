// Creates an API key pair (the public API's and the SDKs' credentials) with its audit row, in the caller's
// transaction: shared by `svc keys create`, the organization API and the first start (src/runtime/bootstrap.ts).
import type { Queryable } from '../../platform/store/database.ts';
import { createApiKey, type CreatedApiKey, type NewApiKey } from '../../platform/store/repos/api-keys.ts';
import { writeAudit } from '../../platform/store/repos/audit-log.ts';

/** The new pair; its secret exists only in the returned value. */
export async function addApiKey(tx: Queryable, key: NewApiKey, by: { actor: string }): Promise<CreatedApiKey> {
  const created = await createApiKey(tx, key);
  await writeAudit(tx, {
    organizationId: key.organizationId,
    projectId: key.projectId,
    actor: by.actor,
    action: 'api_key.create',
    resourceType: 'api_key',
    resourceId: created.id,
    details: { kind: key.kind, publicKey: created.publicKey },
  });
  return created;
}
