// Organization endpoints under {base_url}/api/public (docs/public-api.md "Organization endpoints": organization keys
// manage projects and project API keys; a project key gets 403). Langfuse's paths and shapes; every change writes an
// audit-log row. Projects declared in gateway.yaml are re-created and renamed at every start
// (src/runtime/bootstrap.ts), so renaming or deleting one here would not last: both answer 409 and name gateway.yaml.
// Their metadata may change (bootstrap does not set it). GET /projects with an organization key lives in projects.ts
// (the path also serves project keys).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import apiKeyCreateSchema from '../../../schemas/api/public-project-api-key-create.json' with { type: 'json' };
import projectSchema from '../../../schemas/api/public-project-create.json' with { type: 'json' };
import { addApiKey } from '../../../src/observability/api-keys/add-api-key.ts';
import { revokeApiKey } from '../../../src/observability/api-keys/revoke-api-key.ts';
import { apiKeyBody, listApiKeys } from '../../../src/platform/store/repos/api-keys.ts';
import { writeAudit, type AuditEntry } from '../../../src/platform/store/repos/audit-log.ts';
import {
  createProject,
  deleteProject,
  findProjectByName,
  getProject,
  updateProject,
  type Project,
} from '../../../src/platform/store/repos/projects.ts';
import type { Queryable } from '../../../src/platform/store/database.ts';
import type { AdminContext } from '../../context.ts';
import { invalidRequestData, PublicApiError } from '../public-error.ts';
import { principalOf, requireKey } from '../route-access.ts';
import { projectBody } from './projects.ts';

interface ProjectBody {
  name: string;
  metadata?: Record<string, unknown>;
  retention?: number;
}

type ProjectParams = { projectId: string };

/** The caller's organization and the actor its audit rows name. */
function callerOf(req: FastifyRequest) {
  const { apiKey } = principalOf(req);
  return { organizationId: apiKey.organizationId, actor: `api-key:${apiKey.id}` };
}

/** The organization's project, or 404 (a project of another organization is not revealed). */
export async function ownProject(db: Queryable, organizationId: string, projectId: string): Promise<Project> {
  const project = await getProject(db, projectId);
  if (!project || project.organizationId !== organizationId)
    throw new PublicApiError('NotFoundError', `Project ${projectId} not found in this organization`);
  return project;
}

function declaredInConfig(ctx: AdminContext, projectId: string): boolean {
  return ctx.config().projects.some((p) => p.id === projectId);
}

async function nameIsFree(db: Queryable, organizationId: string, name: string, exceptId?: string): Promise<void> {
  const taken = await findProjectByName(db, organizationId, name);
  if (taken && taken.id !== exceptId)
    throw new PublicApiError(
      'ConflictError',
      `A project named ${JSON.stringify(name)} already exists in this organization`,
    );
}

async function audit(
  db: Queryable,
  req: FastifyRequest,
  entry: Omit<AuditEntry, 'organizationId' | 'actor'>,
): Promise<void> {
  const { organizationId, actor } = callerOf(req);
  await writeAudit(db, { organizationId, actor, ...entry });
}

type ProjectRequest = FastifyRequest<{ Params: ProjectParams; Body: ProjectBody }>;
/** `publicKey` and `secretKey` are read only to refuse them: the service generates the pair. */
type KeyCreateBody = { note?: string; publicKey?: unknown; secretKey?: unknown };

async function addProject(ctx: AdminContext, req: FastifyRequest<{ Body: ProjectBody }>) {
  const { organizationId } = callerOf(req);
  const name = req.body.name.trim();
  const project = await ctx.db.transaction(async (tx) => {
    await nameIsFree(tx, organizationId, name);
    const id = randomUUID();
    await createProject(tx, {
      id,
      organizationId,
      name,
      metadata: req.body.metadata ?? {},
      retentionDays: req.body.retention ?? 0,
    });
    await audit(tx, req, {
      projectId: id,
      action: 'project.create',
      resourceType: 'project',
      resourceId: id,
      details: { name },
    });
    return (await getProject(tx, id))!;
  });
  return projectBody(project);
}

async function changeProject(ctx: AdminContext, req: ProjectRequest) {
  const { organizationId } = callerOf(req);
  const { projectId } = req.params;
  const name = req.body.name.trim();
  const project = await ctx.db.transaction(async (tx) => {
    const before = await ownProject(tx, organizationId, projectId);
    if (name !== before.name && declaredInConfig(ctx, projectId)) {
      throw new PublicApiError(
        'ConflictError',
        `Project ${projectId} is declared in gateway.yaml; rename it there (the next start would undo a rename here)`,
      );
    }
    await nameIsFree(tx, organizationId, name, projectId);
    await updateProject(tx, projectId, { name, metadata: req.body.metadata, retentionDays: req.body.retention });
    const details = {
      name: { from: before.name, to: name },
      ...(req.body.metadata === undefined ? {} : { metadata: req.body.metadata }),
      ...(req.body.retention === undefined
        ? {}
        : { retention: { from: before.retentionDays, to: req.body.retention } }),
    };
    await audit(tx, req, {
      projectId,
      action: 'project.update',
      resourceType: 'project',
      resourceId: projectId,
      details,
    });
    return (await getProject(tx, projectId))!;
  });
  return projectBody(project);
}

async function removeProject(ctx: AdminContext, req: FastifyRequest<{ Params: ProjectParams }>, reply: FastifyReply) {
  const { organizationId } = callerOf(req);
  const { projectId } = req.params;
  await ctx.db.transaction(async (tx) => {
    const project = await ownProject(tx, organizationId, projectId);
    if (declaredInConfig(ctx, projectId)) {
      throw new PublicApiError(
        'ConflictError',
        `Project ${projectId} is declared in gateway.yaml; remove it there (the next start would re-create it)`,
      );
    }
    await deleteProject(tx, projectId);
    await audit(tx, req, {
      projectId,
      action: 'project.delete',
      resourceType: 'project',
      resourceId: projectId,
      details: { name: project.name },
    });
  });
  // The project's gateway keys go with it; this process stops serving them now, not at the next poll.
  await ctx.keys.refresh().catch((err: Error) =>
    ctx.log.warn('gateway key refresh after project deletion failed; the next poll applies it', {
      error: err.message,
    }),
  );
  reply.code(202);
  return { success: true, message: `Project ${projectId} deleted` };
}

async function listKeys(ctx: AdminContext, req: FastifyRequest<{ Params: ProjectParams }>) {
  const { organizationId } = callerOf(req);
  await ownProject(ctx.db, organizationId, req.params.projectId);
  const keys = await listApiKeys(ctx.db, { projectId: req.params.projectId });
  return {
    apiKeys: keys.map(apiKeyBody),
  };
}

async function addKey(
  ctx: AdminContext,
  req: FastifyRequest<{ Params: ProjectParams; Body: KeyCreateBody }>,
  reply: FastifyReply,
) {
  const { organizationId } = callerOf(req);
  const { projectId } = req.params;
  // Langfuse lets the caller choose the pair; here the service always generates it, so a chosen one is refused
  // rather than silently replaced.
  for (const field of ['publicKey', 'secretKey'] as const) {
    if (req.body[field] !== undefined)
      throw invalidRequestData([
        { path: [field], message: 'caller-chosen keys are not supported: the service generates the key pair' },
      ]);
  }
  const key = await ctx.db.transaction(async (tx) => {
    await ownProject(tx, organizationId, projectId);
    return addApiKey(
      tx,
      { kind: 'project', organizationId, projectId, note: req.body.note, now: ctx.clock.now() },
      callerOf(req),
    );
  });
  reply.header('cache-control', 'no-store');
  return { ...apiKeyBody(key), secretKey: key.secretKey };
}

async function removeKey(ctx: AdminContext, req: FastifyRequest<{ Params: ProjectParams & { apiKeyId: string } }>) {
  const { organizationId } = callerOf(req);
  const { projectId, apiKeyId } = req.params;
  await ctx.db.transaction(async (tx) => {
    await ownProject(tx, organizationId, projectId);
    if (!(await revokeApiKey(tx, { id: projectId, organizationId }, apiKeyId, callerOf(req))))
      throw new PublicApiError('NotFoundError', `API key ${apiKeyId} not found in project ${projectId}`);
  });
  return { success: true };
}

export function registerPublicOrganization(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'organization');
  const oneProject = '/projects/:projectId';
  app.post<{ Body: ProjectBody }>('/projects', { onRequest, schema: { body: projectSchema } }, (req) =>
    addProject(ctx, req),
  );
  app.put<{ Params: ProjectParams; Body: ProjectBody }>(
    oneProject,
    { onRequest, schema: { body: projectSchema } },
    (req) => changeProject(ctx, req),
  );
  app.delete<{ Params: ProjectParams }>(oneProject, { onRequest }, (req, reply) => removeProject(ctx, req, reply));
  app.get<{ Params: ProjectParams }>(`${oneProject}/apiKeys`, { onRequest }, (req) => listKeys(ctx, req));
  app.post<{ Params: ProjectParams; Body: KeyCreateBody }>(
    `${oneProject}/apiKeys`,
    {
      onRequest,
      // A create with no body at all is a key with no note.
      preValidation: async (req) => {
        req.body ??= {};
      },
      schema: { body: apiKeyCreateSchema },
    },
    (req, reply) => addKey(ctx, req, reply),
  );
  app.delete<{ Params: ProjectParams & { apiKeyId: string } }>(
    `${oneProject}/apiKeys/:apiKeyId`,
    { onRequest },
    (req) => removeKey(ctx, req),
  );
}
