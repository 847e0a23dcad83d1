// Datasets (docs/public-api.md "Datasets and score configs"): upserted and addressed by name within a project.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../database.ts';
import { selectPage, type PageWindow } from './page.ts';
import { iso, json } from './rows.ts';

export interface DatasetInput {
  name: string;
  description?: string | null;
  metadata?: unknown;
  inputSchema?: unknown;
  expectedOutputSchema?: unknown;
}

export interface StoredDataset {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  metadata: unknown;
  inputSchema: unknown;
  expectedOutputSchema: unknown;
  createdAt: string;
  updatedAt: string;
}

function toDataset(r: Record<string, any>): StoredDataset {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    description: r.description,
    metadata: r.metadata,
    inputSchema: r.input_schema,
    expectedOutputSchema: r.expected_output_schema,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

/** A JSON value for a nullable jsonb column: absent and JSON null both store SQL null (so COALESCE keeps). */
export const jsonOrNull = (value: unknown) => json(value ?? undefined);

/** Creates the dataset, or updates the one of that name: fields given replace, absent (or null) ones keep. */
export async function upsertDataset(db: Queryable, projectId: string, d: DatasetInput): Promise<StoredDataset> {
  const r = await db.query(
    `INSERT INTO datasets (project_id, id, name, description, metadata, input_schema, expected_output_schema)
     VALUES ($1, $2, $3, $4, $5::text::jsonb, $6::text::jsonb, $7::text::jsonb)
     ON CONFLICT (project_id, name) DO UPDATE SET
       description = COALESCE(EXCLUDED.description, datasets.description),
       metadata = COALESCE(EXCLUDED.metadata, datasets.metadata),
       input_schema = COALESCE(EXCLUDED.input_schema, datasets.input_schema),
       expected_output_schema = COALESCE(EXCLUDED.expected_output_schema, datasets.expected_output_schema),
       updated_at = now()
     RETURNING *`,
    [
      projectId,
      randomUUID(),
      d.name,
      d.description ?? null,
      jsonOrNull(d.metadata),
      jsonOrNull(d.inputSchema),
      jsonOrNull(d.expectedOutputSchema),
    ],
  );
  return toDataset(r.rows[0]);
}

export async function getDatasetByName(
  db: Queryable,
  projectId: string,
  name: string,
): Promise<StoredDataset | undefined> {
  const r = await db.query('SELECT * FROM datasets WHERE project_id = $1 AND name = $2', [projectId, name]);
  return r.rows[0] ? toDataset(r.rows[0]) : undefined;
}

/** Newest first (ties on id). */
export function listDatasets(
  db: Queryable,
  projectId: string,
  page: PageWindow,
): Promise<{ data: StoredDataset[]; total: number }> {
  return selectPage(
    db,
    { columns: '*', from: 'datasets', where: 'project_id = $1', params: [projectId], orderBy: 'created_at DESC, id' },
    page,
    toDataset,
  );
}
