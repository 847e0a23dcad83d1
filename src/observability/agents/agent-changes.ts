// The audited changes of agents: adding one (`svc agents add`), suspending and resuming one (the dashboard). Each
// change is stored with its audit row in one transaction; the caller then refreshes its key cache, since a suspended
// agent's keys answer `key_blocked`.
import type { Database } from '../../platform/store/database.ts';
import {
  addAgent,
  getAgent,
  setAgentStatus,
  type Agent,
  type AgentInput,
  type AgentStatus,
} from '../../platform/store/repos/agents.ts';
import { writeProjectAudit } from '../../platform/store/repos/audit-log.ts';
import type { Project } from '../../platform/store/repos/projects.ts';

type ProjectRef = Pick<Project, 'id' | 'organizationId'>;

/** Adds an active agent; AgentExistsError when the project has one of that name and version. */
export async function addProjectAgent(
  db: Database,
  project: ProjectRef,
  agent: Pick<AgentInput, 'name' | 'version' | 'framework' | 'model'>,
  by: { actor: string },
): Promise<Agent> {
  return db.transaction(async (tx) => {
    const added = await addAgent(tx, { projectId: project.id, ...agent });
    await writeProjectAudit(tx, project, by.actor, {
      action: 'agent.create',
      resourceType: 'agent',
      resourceId: added.id,
      details: { name: added.name, version: added.version },
    });
    return added;
  });
}

/** Suspends or resumes the project's agent; undefined when it has none of that id. */
export async function changeAgentStatus(
  db: Database,
  project: ProjectRef,
  agentId: string,
  status: AgentStatus,
  by: { actor: string },
): Promise<Agent | undefined> {
  return db.transaction(async (tx) => {
    if (!(await setAgentStatus(tx, project.id, agentId, status))) return undefined;
    await writeProjectAudit(tx, project, by.actor, {
      action: status === 'suspended' ? 'agent.suspend' : 'agent.resume',
      resourceType: 'agent',
      resourceId: agentId,
    });
    return (await getAgent(tx, project.id, agentId))!;
  });
}
