import { randomUUID } from 'node:crypto';
import type { Queryable } from '../database.ts';
import { iso, num } from './rows.ts';

export type AgentStatus = 'active' | 'suspended';

/** An agent as docs/rest-api.md describes it (GET /v1/agents), plus the project it belongs to. */
export interface Agent {
  id: string;
  projectId: string;
  name: string;
  version: string;
  framework: string;
  model: string;
  status: AgentStatus;
  createdAt: string;
}

export interface AgentInput {
  id?: string;
  projectId: string;
  name: string;
  version?: string;
  framework?: string;
  model?: string;
  status?: AgentStatus;
}

function toAgent(r: Record<string, any>): Agent {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    version: r.version,
    framework: r.framework,
    model: r.model,
    status: r.status,
    createdAt: iso(r.created_at)!,
  };
}

export class AgentExistsError extends Error {}

export async function addAgent(db: Queryable, a: AgentInput): Promise<Agent> {
  const r = await db.query(
    `INSERT INTO agents (id, project_id, name, version, framework, model, status) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT DO NOTHING RETURNING *`,
    [
      a.id ?? randomUUID(),
      a.projectId,
      a.name,
      a.version ?? '',
      a.framework ?? '',
      a.model ?? '',
      a.status ?? 'active',
    ],
  );
  if (!r.rows[0])
    throw new AgentExistsError(
      `an agent named '${a.name}'${a.version ? ` version '${a.version}'` : ''} (or with that id) already exists in project '${a.projectId}'`,
    );
  return toAgent(r.rows[0]);
}

/** An agent declared in gateway.yaml: created, or updated to match the file. */
export async function upsertDeclaredAgent(db: Queryable, a: AgentInput & { id: string }): Promise<void> {
  await db.query(
    `INSERT INTO agents (id, project_id, name, version, framework, model, status) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, version = EXCLUDED.version, framework = EXCLUDED.framework,
       model = EXCLUDED.model, status = EXCLUDED.status, revision = nextval('change_revision')
     WHERE (agents.name, agents.version, agents.framework, agents.model, agents.status)
       IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.version, EXCLUDED.framework, EXCLUDED.model, EXCLUDED.status)`,
    [a.id, a.projectId, a.name, a.version ?? '', a.framework ?? '', a.model ?? '', a.status ?? 'active'],
  );
}

export async function listAgents(db: Queryable, projectId: string): Promise<Agent[]> {
  const r = await db.query('SELECT * FROM agents WHERE project_id = $1 ORDER BY name, version, created_at', [
    projectId,
  ]);
  return r.rows.map(toAgent);
}

export async function getAgent(db: Queryable, projectId: string, id: string): Promise<Agent | undefined> {
  const r = await db.query('SELECT * FROM agents WHERE project_id = $1 AND id = $2', [projectId, id]);
  return r.rows[0] ? toAgent(r.rows[0]) : undefined;
}

export async function setAgentStatus(
  db: Queryable,
  projectId: string,
  id: string,
  status: AgentStatus,
): Promise<boolean> {
  const r = await db.query(
    `UPDATE agents SET status = $3, revision = nextval('change_revision') WHERE project_id = $1 AND id = $2`,
    [projectId, id, status],
  );
  return r.rowCount > 0;
}

/** Agents changed after `revision` (all when 0), for the key cache. */
export async function agentsChangedSince(
  db: Queryable,
  revision: number,
): Promise<{ id: string; status: AgentStatus; revision: number }[]> {
  const r = await db.query<{ id: string; status: AgentStatus; revision: unknown }>(
    'SELECT id, status, revision FROM agents WHERE revision > $1 ORDER BY revision',
    [revision],
  );
  return r.rows.map((x) => ({ id: x.id, status: x.status, revision: num(x.revision) }));
}
