// LLM connections of a project (public API /llm-connections), one per provider. The secret and the extra header
// values are stored sealed (src/platform/secrets/secret-box.ts); reads for the API never select them.
import type { Queryable } from '../database.ts';
import { selectPage, type PageWindow } from './page.ts';
import { iso, json } from './rows.ts';

export interface LlmConnectionRow {
  id: string;
  projectId: string;
  provider: string;
  adapter: string;
  secretKeyEncrypted: string;
  displaySecretKey: string;
  baseUrl: string | null;
  customModels: string[];
  withDefaultModels: boolean;
  extraHeadersEncrypted: string | null;
  extraHeaderKeys: string[];
  config: Record<string, unknown> | null;
}

export type StoredLlmConnection = Omit<LlmConnectionRow, 'secretKeyEncrypted' | 'extraHeadersEncrypted'> & {
  createdAt: string;
  updatedAt: string;
};

const PUBLIC_COLUMNS = `id, project_id, provider, adapter, display_secret_key, base_url, custom_models, with_default_models,
  extra_header_keys, config, created_at, updated_at`;

function toConnection(r: Record<string, any>): StoredLlmConnection {
  return {
    id: r.id,
    projectId: r.project_id,
    provider: r.provider,
    adapter: r.adapter,
    displaySecretKey: r.display_secret_key,
    baseUrl: r.base_url,
    customModels: r.custom_models,
    withDefaultModels: r.with_default_models,
    extraHeaderKeys: r.extra_header_keys,
    config: r.config,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

/** Creates the project's connection for the provider, or replaces it (keeping its id); `created` tells which. */
export async function upsertLlmConnection(
  db: Queryable,
  c: LlmConnectionRow,
): Promise<{ connection: StoredLlmConnection; created: boolean }> {
  const r = await db.query(
    `INSERT INTO llm_connections (id, project_id, provider, adapter, secret_key_encrypted, display_secret_key, base_url, custom_models,
       with_default_models, extra_headers_encrypted, extra_header_keys, config)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9, $10, $11::text::jsonb, $12::text::jsonb)
     ON CONFLICT (project_id, provider) DO UPDATE SET
       adapter = EXCLUDED.adapter, secret_key_encrypted = EXCLUDED.secret_key_encrypted, display_secret_key = EXCLUDED.display_secret_key,
       base_url = EXCLUDED.base_url, custom_models = EXCLUDED.custom_models, with_default_models = EXCLUDED.with_default_models,
       extra_headers_encrypted = EXCLUDED.extra_headers_encrypted, extra_header_keys = EXCLUDED.extra_header_keys,
       config = EXCLUDED.config, updated_at = now()
     RETURNING ${PUBLIC_COLUMNS}, (xmax = 0) AS created`,
    [
      c.id,
      c.projectId,
      c.provider,
      c.adapter,
      c.secretKeyEncrypted,
      c.displaySecretKey,
      c.baseUrl,
      json(c.customModels),
      c.withDefaultModels,
      c.extraHeadersEncrypted,
      json(c.extraHeaderKeys),
      json(c.config ?? undefined),
    ],
  );
  return { connection: toConnection(r.rows[0]), created: r.rows[0].created === true };
}

/** Oldest first (ties on id). */
export function listLlmConnections(
  db: Queryable,
  projectId: string,
  page: PageWindow,
): Promise<{ data: StoredLlmConnection[]; total: number }> {
  return selectPage(
    db,
    {
      columns: PUBLIC_COLUMNS,
      from: 'llm_connections',
      where: 'project_id = $1',
      params: [projectId],
      orderBy: 'created_at, id',
    },
    page,
    toConnection,
  );
}

/** True when a connection was deleted. */
export async function deleteLlmConnection(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const r = await db.query('DELETE FROM llm_connections WHERE project_id = $1 AND id = $2', [projectId, id]);
  return r.rowCount > 0;
}
