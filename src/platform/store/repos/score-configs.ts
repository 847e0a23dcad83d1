// Score configs (Langfuse's ScoreConfig; docs/public-api.md "Datasets and score configs"): the shape a score of a given
// name must have. Created, listed, read and patched through the public API; read by score creation to check a score
// that names its config.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../database.ts';
import { selectPage, type PageWindow } from './page.ts';
import { iso, json, num } from './rows.ts';
import type { ScoreDataType } from './scores.ts';

export interface ConfigCategory {
  label: string;
  value: number;
}

export interface ScoreConfigFields {
  name: string;
  dataType: ScoreDataType;
  isArchived: boolean;
  minValue: number | null;
  maxValue: number | null;
  categories: ConfigCategory[] | null;
  description: string | null;
}

export interface StoredScoreConfig extends ScoreConfigFields {
  id: string;
  projectId: string;
  createdAt: string;
  updatedAt: string;
}

function toConfig(r: Record<string, any>): StoredScoreConfig {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    dataType: r.data_type,
    isArchived: r.is_archived,
    minValue: r.min_value === null ? null : num(r.min_value),
    maxValue: r.max_value === null ? null : num(r.max_value),
    categories: r.categories ?? null,
    description: r.description,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

export async function createScoreConfig(
  db: Queryable,
  projectId: string,
  c: ScoreConfigFields,
  id: string = randomUUID(),
): Promise<StoredScoreConfig> {
  const r = await db.query(
    `INSERT INTO score_configs (project_id, id, name, data_type, is_archived, min_value, max_value, categories, description)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9) RETURNING *`,
    [projectId, id, c.name, c.dataType, c.isArchived, c.minValue, c.maxValue, json(c.categories), c.description],
  );
  return toConfig(r.rows[0]);
}

/** Replaces every field of the config; undefined when the project has no such config. */
export async function updateScoreConfig(
  db: Queryable,
  projectId: string,
  id: string,
  c: ScoreConfigFields,
): Promise<StoredScoreConfig | undefined> {
  const r = await db.query(
    `UPDATE score_configs SET name = $3, data_type = $4, is_archived = $5, min_value = $6, max_value = $7, categories = $8::text::jsonb,
       description = $9, updated_at = now()
     WHERE project_id = $1 AND id = $2 RETURNING *`,
    [projectId, id, c.name, c.dataType, c.isArchived, c.minValue, c.maxValue, json(c.categories), c.description],
  );
  return r.rows[0] ? toConfig(r.rows[0]) : undefined;
}

export async function getScoreConfig(
  db: Queryable,
  projectId: string,
  id: string,
): Promise<StoredScoreConfig | undefined> {
  return (await getScoreConfigsByIds(db, projectId, [id])).get(id);
}

/** The project's configs among `ids`, by id (unknown ids are absent). */
export async function getScoreConfigsByIds(
  db: Queryable,
  projectId: string,
  ids: readonly string[],
): Promise<Map<string, StoredScoreConfig>> {
  if (ids.length === 0) return new Map();
  const r = await db.query('SELECT * FROM score_configs WHERE project_id = $1 AND id = ANY($2::text[])', [
    projectId,
    [...new Set(ids)],
  ]);
  return new Map(r.rows.map((row) => [row.id as string, toConfig(row)]));
}

/** Newest first (ties on id). */
export function listScoreConfigs(
  db: Queryable,
  projectId: string,
  page: PageWindow,
): Promise<{ data: StoredScoreConfig[]; total: number }> {
  return selectPage(
    db,
    {
      columns: '*',
      from: 'score_configs',
      where: 'project_id = $1',
      params: [projectId],
      orderBy: 'created_at DESC, id',
    },
    page,
    toConfig,
  );
}
