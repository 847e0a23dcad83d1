// Prompts v2 under {base_url}/api/public/v2/prompts (route class `prompt`; docs/public-api.md
// "Prompts — /api/public/v2/prompts"): create a version, get one by version or label (its composition references
// resolved unless `resolve=false`), list names, add labels to a version, delete versions. Folder names arrive as one
// URL-encoded path segment (`folder%2Fname`); the router matches before decoding, so `:name` holds `folder/name`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import createSchema from '../../../schemas/api/public-prompt-create.json' with { type: 'json' };
import labelsSchema from '../../../schemas/api/public-prompt-labels.json' with { type: 'json' };
import promptQuerySchema from '../../../schemas/api/public-prompt-query.json' with { type: 'json' };
import listQuerySchema from '../../../schemas/api/public-prompts-query.json' with { type: 'json' };
import {
  addPromptLabels,
  createPromptVersion,
  deletePromptVersions,
  getPromptVersion,
  listPrompts,
  PromptError,
  type PromptSelector,
  type PromptType,
  type StoredPrompt,
} from '../../../src/platform/store/repos/prompts.ts';
import type { ChatEntry } from '../../../src/platform/store/repos/chat-entry.ts';
import {
  PromptCompositionError,
  resolvePrompt,
  type FindPrompt,
} from '../../../src/observability/prompts/resolve-prompt.ts';
import type { AdminContext } from '../../context.ts';
import { pageMeta, pageOffset } from '../paging.ts';
import { PublicApiError } from '../public-error.ts';
import { projectOf, requireKey } from '../route-access.ts';

interface CreateBody {
  name: string;
  type: PromptType;
  prompt: string | ChatEntry[];
  config?: Record<string, unknown> | null;
  labels?: string[];
  tags?: string[] | null;
  commitMessage?: string | null;
}

interface PromptQuery {
  version?: number;
  label?: string;
  /** GET: compose the prompt's references (default), or answer its text as stored (false). */
  resolve?: boolean;
}

interface ListQuery {
  page: number;
  limit: number;
  name?: string;
  label?: string;
  tag?: string;
  fromUpdatedAt?: string;
  toUpdatedAt?: string;
}

const nameParams = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1 } },
};
const versionParams = {
  type: 'object',
  required: ['name', 'version'],
  properties: { name: { type: 'string', minLength: 1 }, version: { type: 'integer', minimum: 1, maximum: 2147483647 } },
};

/** Langfuse's name rules: folders are `/`-separated non-empty segments; `|` is the composition separator. */
function nameProblem(name: string): string | undefined {
  if (name.includes('|')) return 'must not contain |';
  if (/<[^>]*>/.test(name)) return 'must not contain HTML tags';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//'))
    return 'must not start or end with / or contain an empty folder (//)';
  return undefined;
}

const invalid = (path: string, message: string) =>
  new PublicApiError('InvalidRequestError', 'Invalid request data', { issues: [{ path: [path], message }] });

function checkCreate(body: CreateBody): void {
  const problem = nameProblem(body.name);
  if (problem) throw invalid('name', problem);
  if (body.type === 'text' && typeof body.prompt !== 'string')
    throw invalid('prompt', 'must be a string for a text prompt');
  if (body.type === 'chat' && !Array.isArray(body.prompt))
    throw invalid('prompt', 'must be an array of chat messages for a chat prompt');
  if (Array.isArray(body.prompt)) {
    // Langfuse's rule: compile() takes variables and placeholders in two maps, and one name in both is ambiguous.
    const variables = new Set(
      body.prompt.flatMap((m) =>
        'content' in m ? [...m.content.matchAll(/\{\{\s*([\w.-]+)\s*\}\}/g)].map((v) => v[1]) : [],
      ),
    );
    const clash = body.prompt.find((m) => m.type === 'placeholder' && 'name' in m && variables.has(m.name));
    if (clash && 'name' in clash) throw invalid('prompt', `placeholder '${clash.name}' has the name of a variable`);
  }
}

/** A selector from `?version=` / `?label=`; both at once is a 400, as in Langfuse. */
function selectorOf(q: PromptQuery): PromptSelector {
  if (q.version !== undefined && q.label !== undefined)
    throw new PublicApiError('InvalidRequestError', 'Cannot specify both version and label');
  if (q.version !== undefined) return { version: q.version };
  if (q.label !== undefined) return { label: q.label };
  return { all: true };
}

/** Looks up what a composition tag names in the project. */
const findReferenced =
  (ctx: AdminContext, projectId: string): FindPrompt =>
  (ref) =>
    getPromptVersion(ctx.db, projectId, ref.name, 'version' in ref ? { version: ref.version } : { label: ref.label });

const fromRepo = (err: unknown) =>
  err instanceof PromptError
    ? new PublicApiError(err.kind === 'not_found' ? 'NotFoundError' : 'InvalidRequestError', err.message, {
        cause: err,
      })
    : err;

/** Langfuse's prompt object: how the routes answer a stored prompt version. */
export function publicPrompt(p: StoredPrompt) {
  return {
    id: p.id,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    projectId: p.projectId,
    createdBy: p.createdBy,
    name: p.name,
    version: p.version,
    type: p.type,
    prompt: p.prompt,
    config: p.config,
    labels: p.labels,
    tags: p.tags,
    commitMessage: p.commitMessage,
  };
}

async function createPrompt(ctx: AdminContext, req: FastifyRequest<{ Body: CreateBody }>, reply: FastifyReply) {
  const project = projectOf(req);
  const body = req.body;
  checkCreate(body);
  // Langfuse refuses a version whose references do not resolve (missing, a chat prompt, a cycle, too deep).
  await resolvePrompt({ name: body.name, prompt: body.prompt }, findReferenced(ctx, project.id)).catch(
    (err: unknown) => {
      throw err instanceof PromptCompositionError
        ? new PublicApiError('InvalidRequestError', err.message, { cause: err })
        : err;
    },
  );
  const created = await createPromptVersion(
    ctx.db,
    project.id,
    {
      name: body.name,
      type: body.type,
      prompt: body.prompt,
      config: body.config ?? {},
      labels: body.labels,
      tags: body.tags ?? undefined,
      commitMessage: body.commitMessage,
      createdBy: 'API',
    },
    ctx.promptEvents,
  ).catch((err) => Promise.reject(fromRepo(err)));
  reply.code(201);
  return publicPrompt(created);
}

/** One version by version or label (production by default), its references resolved unless `resolve=false`. */
async function getPrompt(
  ctx: AdminContext,
  req: FastifyRequest<{ Params: { name: string }; Querystring: PromptQuery }>,
) {
  const project = projectOf(req);
  const { name } = req.params;
  const selector = selectorOf(req.query);
  const chosen = 'all' in selector ? { label: 'production' } : selector;
  const found = await getPromptVersion(ctx.db, project.id, name, chosen);
  if (!found) {
    const what = 'version' in chosen ? `version ${chosen.version}` : `label '${chosen.label}'`;
    throw new PublicApiError('NotFoundError', `Prompt not found: '${name}' with ${what}`);
  }
  const composed =
    req.query.resolve === false
      ? { prompt: found.prompt, graph: null }
      : await resolvePrompt(found, findReferenced(ctx, project.id)).catch((err: unknown) => {
          // A reference that stopped resolving since the version was created: Langfuse's 409.
          throw err instanceof PromptCompositionError
            ? new PublicApiError('ConflictError', err.message, { cause: err })
            : err;
        });
  return {
    ...publicPrompt(found),
    prompt: composed.prompt,
    resolutionGraph: composed.graph,
    isActive: found.labels.includes('production'),
  };
}

export function registerPublicPrompts(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'prompt');

  app.post<{ Body: CreateBody }>('/v2/prompts', { schema: { body: createSchema }, onRequest }, (req, reply) =>
    createPrompt(ctx, req, reply),
  );

  app.get<{ Querystring: ListQuery }>(
    '/v2/prompts',
    { schema: { querystring: listQuerySchema }, onRequest },
    async (req) => {
      const project = projectOf(req);
      const q = req.query;
      const { data, total } = await listPrompts(ctx.db, project.id, { ...q, limit: q.limit, offset: pageOffset(q) });
      const meta = pageMeta(q, total);
      // Langfuse answers the same paging twice, as `meta` and as `pagination`.
      return { data, meta, pagination: meta };
    },
  );

  app.get<{ Params: { name: string }; Querystring: PromptQuery }>(
    '/v2/prompts/:name',
    { schema: { params: nameParams, querystring: promptQuerySchema }, onRequest },
    (req) => getPrompt(ctx, req),
  );

  app.patch<{ Params: { name: string; version: number }; Body: { newLabels: string[] } }>(
    '/v2/prompts/:name/versions/:version',
    { schema: { params: versionParams, body: labelsSchema }, onRequest },
    async (req) => {
      const project = projectOf(req);
      const { name, version } = req.params;
      const updated = await addPromptLabels(
        ctx.db,
        project.id,
        name,
        version,
        req.body.newLabels,
        ctx.promptEvents,
      ).catch((err) => Promise.reject(fromRepo(err)));
      return publicPrompt(updated);
    },
  );

  app.delete<{ Params: { name: string }; Querystring: PromptQuery }>(
    '/v2/prompts/:name',
    { schema: { params: nameParams, querystring: promptQuerySchema }, onRequest },
    async (req, reply) => {
      const project = projectOf(req);
      await deletePromptVersions(ctx.db, project.id, req.params.name, selectorOf(req.query), ctx.promptEvents).catch(
        (err) => Promise.reject(fromRepo(err)),
      );
      return reply.code(204).send();
    },
  );
}
