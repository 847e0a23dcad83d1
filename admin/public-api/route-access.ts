// Which key kind each public API route takes (docs/public-api.md "Route classes and key kinds"). Every
// route declares its class; the table in docs/public-api.md is this function.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { noteApiKeyUse } from '../../src/platform/store/api-key-use.ts';
import type { AdminContext } from '../context.ts';
import { authenticate, type PublicPrincipal } from './basic-auth.ts';
import { PublicApiError } from './public-error.ts';

/**
 * - `project`: reads trace data or manages project resources (project key; not for ingestion-only projects).
 * - `ingestion-write`: sends traces, observations, scores or media (project key; ingestion-only projects too).
 * - `credentials`: the SDKs' credential check, GET /projects (project key; ingestion-only projects too).
 * - `prompt`: prompt endpoints (project key; an organization key is 403; ingestion-only projects may only read).
 * - `organization`: organization management (organization key only).
 */
export type RouteClass = 'project' | 'ingestion-write' | 'credentials' | 'prompt' | 'organization';

export const ACCESS_MESSAGES = {
  organizationKey: 'Invalid API key. Are you using an organization key?',
  promptWithOrganizationKey: 'Access denied - prompt endpoints need a project API key, not an organization API key',
  needsOrganizationKey: 'Access denied - this endpoint needs an organization API key',
  ingestionOnly:
    'Access denied - this project is ingestion-only: its keys can send data and fetch prompts, not read trace data or manage resources',
} as const;

const READ_METHODS = new Set(['GET', 'HEAD']);

/** Throws the 401 or 403 when the principal's key may not call a route of this class with this method. */
export function checkAccess(routeClass: RouteClass, method: string, principal: PublicPrincipal): void {
  const { apiKey, project } = principal;
  if (routeClass === 'organization') {
    if (apiKey.kind !== 'organization')
      throw new PublicApiError('ForbiddenError', ACCESS_MESSAGES.needsOrganizationKey);
    return;
  }
  if (apiKey.kind === 'organization') {
    if (routeClass === 'prompt') throw new PublicApiError('ForbiddenError', ACCESS_MESSAGES.promptWithOrganizationKey);
    throw new PublicApiError('UnauthorizedError', ACCESS_MESSAGES.organizationKey);
  }
  if (!project?.ingestionOnly) return;
  const allowed =
    routeClass === 'ingestion-write' ||
    routeClass === 'credentials' ||
    (routeClass === 'prompt' && READ_METHODS.has(method));
  if (!allowed) throw new PublicApiError('ForbiddenError', ACCESS_MESSAGES.ingestionOnly);
}

const principals = new WeakMap<FastifyRequest, PublicPrincipal>();

/** An onRequest hook that authenticates, checks the key against the class `classOf` picks, keeps the principal. */
function keyHook(ctx: AdminContext, classOf: (principal: PublicPrincipal) => RouteClass): onRequestAsyncHookHandler {
  return async (req) => {
    const now = ctx.clock.now();
    const principal = await authenticate(ctx.db, req.headers.authorization, now);
    noteApiKeyUse(ctx.db, ctx.log, principal.apiKey.id, now);
    checkAccess(classOf(principal), req.method, principal);
    principals.set(req, principal);
  };
}

/** The onRequest hook of a route of this class: authenticates, checks the key kind, keeps the principal for the handler. */
export function requireKey(ctx: AdminContext, routeClass: RouteClass): onRequestAsyncHookHandler {
  return keyHook(ctx, () => routeClass);
}

/**
 * The onRequest hook of a path that serves both key kinds (GET /projects): an organization key is checked as
 * `organization`, any other as `projectClass`; the handler branches on `principalOf(req).apiKey.kind`.
 */
export function requireEitherKey(
  ctx: AdminContext,
  projectClass: Exclude<RouteClass, 'organization'>,
): onRequestAsyncHookHandler {
  return keyHook(ctx, (principal) => (principal.apiKey.kind === 'organization' ? 'organization' : projectClass));
}

/** The principal `requireKey` found; only in handlers of routes that declare it. */
export function principalOf(req: FastifyRequest): PublicPrincipal {
  const principal = principals.get(req);
  if (!principal) throw new Error(`route ${req.method} ${req.url} has no requireKey hook`);
  return principal;
}

/** The project of a project-key principal (every class but `organization`). */
export function projectOf(req: FastifyRequest) {
  const { project } = principalOf(req);
  if (!project) throw new Error(`route ${req.method} ${req.url} needs a project key`);
  return project;
}
