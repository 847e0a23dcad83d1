// Brings the store in line with gateway.yaml at start: the organization, its projects and declared agents.
import { addApiKey } from '../observability/api-keys/add-api-key.ts';
import type { GatewayConfig } from '../platform/config/types.ts';
import type { Database } from '../platform/store/database.ts';
import { upsertDeclaredAgent } from '../platform/store/repos/agents.ts';
import { countApiKeys, type CreatedApiKey } from '../platform/store/repos/api-keys.ts';
import { ensureOrganization, upsertProject } from '../platform/store/repos/projects.ts';

/** Returns the project key pairs created now (one per project created on this start): printed once, never again. */
export async function bootstrapStore(db: Database, config: GatewayConfig, now: number): Promise<CreatedApiKey[]> {
  return db.transaction(async (tx) => {
    await ensureOrganization(tx, config.organization);
    const created: CreatedApiKey[] = [];
    for (const p of config.projects) {
      const isNew = await upsertProject(tx, {
        id: p.id,
        organizationId: config.organization.id,
        name: p.name ?? p.id,
        maxKeyExpiryHours: p.max_key_expiry_hours,
        ingestionOnly: p.ingestion_only,
      });
      if (isNew && (await countApiKeys(tx, p.id)) === 0) {
        const key = await addApiKey(
          tx,
          {
            kind: 'project',
            organizationId: config.organization.id,
            projectId: p.id,
            note: 'created on first start',
            now,
          },
          { actor: 'config' },
        );
        created.push(key);
      }
    }
    for (const a of config.agents) {
      await upsertDeclaredAgent(tx, {
        id: a.id,
        projectId: a.project,
        name: a.name,
        version: a.version,
        framework: a.framework,
        model: a.model,
        status: a.status,
      });
    }
    return created;
  });
}
