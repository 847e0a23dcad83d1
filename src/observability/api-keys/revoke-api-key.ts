// Revokes a project API key (deletes it: the next request with it gets 401) with its audit row, in the caller's
// transaction: shared by the organization API and the dashboard's project settings.
import type { Queryable } from '../../platform/store/database.ts';
import { deleteProjectApiKey } from '../../platform/store/repos/api-keys.ts';
import { writeProjectAudit } from '../../platform/store/repos/audit-log.ts';

/** False when the project has no key with this id (nothing is written then). */
export async function revokeApiKey(
  tx: Queryable,
  project: { id: string; organizationId: string },
  id: string,
  by: { actor: string },
): Promise<boolean> {
  if (!(await deleteProjectApiKey(tx, project.id, id))) return false;
  await writeProjectAudit(tx, project, by.actor, {
    action: 'api_key.delete',
    resourceType: 'api_key',
    resourceId: id,
    details: { kind: 'project' },
  });
  return true;
}
