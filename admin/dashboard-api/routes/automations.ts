// Dashboard automations (docs/dashboard.md "Automations", docs/webhooks.md): a prompt-version trigger paired with a
// webhook, Slack or PagerDuty action. The signing secret is shown once (creation, rotation, becoming a webhook); lists
// never hold a secret, a routing key or header values. Target URLs are credentials too (a Slack URL is its own key):
// viewers see only scheme and host, and audit rows (which viewers read) keep only the host. Every change is audited as
// `dashboard:<email>`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  addAutomation,
  removeAutomation,
  resendDelivery,
  rotateAutomationSecret,
  urlHost,
} from '../../../src/observability/automations/automation-changes.ts';
import {
  AUTOMATION_ACTIONS,
  AUTOMATION_TYPES,
  getAutomation,
  listAutomations,
  pageDeliveryAttempts,
  setAutomationEnabled,
  updateAutomation,
  type Automation,
  type AutomationAction,
  type AutomationType,
  type CreatedAutomation,
  type DeliveryAttempt,
} from '../../../src/platform/store/repos/automations.ts';
import type { Project } from '../../../src/platform/store/repos/projects.ts';
import { roleAtLeast } from '../../../src/observability/users/roles.ts';
import { AutomationRuleError, checkAutomationSpec } from '../../../src/observability/webhooks/automation-rules.ts';
import type { AdminContext } from '../../context.ts';
import { auditDashboardChange, byDashboardUser } from '../dashboard-audit.ts';
import { pagination, PAGING_QUERY_SCHEMA, type PagingQuery } from '../paging.ts';
import { projectOf } from '../project-scope.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { dashboardUserOf, requireSession } from '../session-guard.ts';

interface ActionBody {
  type: AutomationType;
  url?: string;
  headers?: Record<string, string>;
  routingKey?: string;
}

interface CreateBody {
  name?: string;
  events?: AutomationAction[];
  action: ActionBody;
}

interface PatchBody {
  name?: string;
  events?: AutomationAction[];
  action?: ActionBody;
  enabled?: boolean;
}

type IdParams = { project: string; id: string };

const action = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { enum: AUTOMATION_TYPES },
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    routingKey: { type: 'string', minLength: 1 },
  },
};
const fields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  events: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: AUTOMATION_ACTIONS } },
  action,
};
const createBody = { type: 'object', additionalProperties: false, required: ['action'], properties: fields };
const patchBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { ...fields, enabled: { type: 'boolean' } },
};

function parsedUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** The URL with its path and query redacted: `https://hooks.slack.com/…`. */
function redactedUrl(url: string | null): string | null {
  if (url === null) return null;
  const u = parsedUrl(url);
  return u ? `${u.protocol}//${u.host}/…` : '…';
}

/** An automation without secrets: header names only (their values may be credentials), the full URL only when `fullUrl`. */
function automationView(a: Automation, fullUrl = true) {
  return {
    id: a.id,
    name: a.name,
    events: a.actions,
    action: { type: a.type, url: fullUrl ? a.url : redactedUrl(a.url), headers: Object.keys(a.headers) },
    enabled: a.enabled,
    consecutiveFailures: a.consecutiveFailures,
    disabledReason: a.disabledReason,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

const attemptView = (d: DeliveryAttempt) => ({
  id: d.id,
  eventId: d.eventId,
  action: d.action,
  state: d.state,
  attempt: d.attempt,
  at: d.at,
  status: d.status,
  latencyMs: d.latencyMs,
  responseStart: d.response,
  error: d.error,
});

/** The action rules shared with `svc automations create`, plus the SSRF rules deliveries follow. */
function checkAction(
  ctx: AdminContext,
  a: ActionBody,
  events: readonly AutomationAction[],
  keptRoutingKey = false,
): void {
  const { allow_private_networks, allowed_hosts } = ctx.config().webhooks;
  try {
    checkAutomationSpec(
      {
        type: a.type,
        url: a.url,
        headers: a.headers ?? {},
        routingKey: a.routingKey ?? (keptRoutingKey ? 'kept' : undefined),
        actions: events,
      },
      { allowPrivateNetworks: allow_private_networks, allowedHosts: allowed_hosts },
    );
  } catch (err) {
    if (err instanceof AutomationRuleError)
      throw new DashboardApiError(
        'invalid_request',
        `${err.field === 'actions' ? 'events' : `action.${err.field}`} ${err.reason}`,
      );
    throw err;
  }
}

/** The automation of `:id` in the project, or 404. */
async function automationOf(
  ctx: AdminContext,
  req: FastifyRequest<{ Params: IdParams }>,
): Promise<{ project: Project; automation: Automation }> {
  const project = await projectOf(ctx, req);
  const automation = await getAutomation(ctx.db, req.params.id);
  if (!automation || automation.projectId !== project.id)
    throw new DashboardApiError('not_found', `No automation '${req.params.id}'`);
  return { project, automation };
}

/** The automation as answered after a change, with a signing secret the change made (shown this once). */
const changedView = (a: CreatedAutomation) => ({
  automation: automationView(a),
  ...(a.signingSecret ? { signingSecret: a.signingSecret } : {}),
});

async function listProjectAutomations(ctx: AdminContext, req: FastifyRequest) {
  const project = await projectOf(ctx, req);
  const fullUrl = roleAtLeast(dashboardUserOf(req).role, 'member');
  return { data: (await listAutomations(ctx.db, project.id)).map((a) => automationView(a, fullUrl)) };
}

async function create(ctx: AdminContext, req: FastifyRequest<{ Body: CreateBody }>, reply: FastifyReply) {
  const project = await projectOf(ctx, req);
  const { name, events = AUTOMATION_ACTIONS, action: a } = req.body;
  checkAction(ctx, a, events);
  const created = await addAutomation(
    ctx.db,
    project,
    { name, actions: events, type: a.type, url: a.url, headers: a.headers, pagerdutyRoutingKey: a.routingKey },
    byDashboardUser(req),
  );
  reply.code(201).header('cache-control', 'no-store');
  return changedView(created);
}

async function change(
  ctx: AdminContext,
  req: FastifyRequest<{ Params: IdParams; Body: PatchBody }>,
  reply: FastifyReply,
) {
  const { project, automation } = await automationOf(ctx, req);
  const { name, events, action: a, enabled } = req.body;
  if (a) checkAction(ctx, a, events ?? automation.actions, a.type === automation.type);
  const changed = await ctx.db.transaction(async (tx) => {
    let updated = await updateAutomation(tx, automation.id, {
      name,
      actions: events,
      action: a && { type: a.type, url: a.url, headers: a.headers, pagerdutyRoutingKey: a.routingKey },
    });
    if (enabled !== undefined && enabled !== automation.enabled) {
      const toggled = await setAutomationEnabled(tx, automation.id, enabled, 'disabled in the dashboard');
      updated = { ...toggled!, signingSecret: updated!.signingSecret };
    }
    await auditDashboardChange(tx, req, project, {
      action: 'automation.update',
      resourceType: 'automation',
      resourceId: automation.id,
      details: {
        changed: Object.keys(req.body),
        ...(a ? { type: a.type, host: urlHost(a.url) } : {}),
        ...(enabled !== undefined ? { enabled } : {}),
      },
    });
    return updated!;
  });
  if (changed.signingSecret) reply.header('cache-control', 'no-store');
  return changedView(changed);
}

async function remove(ctx: AdminContext, req: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const { project, automation } = await automationOf(ctx, req);
  await removeAutomation(ctx.db, project, automation, byDashboardUser(req));
  return reply.code(204).send();
}

async function rotateSecret(ctx: AdminContext, req: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const { project, automation } = await automationOf(ctx, req);
  if (automation.type !== 'webhook')
    throw new DashboardApiError(
      'conflict',
      `Automation '${automation.id}' is a ${automation.type} action: only webhooks have a signing secret`,
    );
  const signingSecret = await rotateAutomationSecret(ctx.db, project, automation, byDashboardUser(req));
  reply.header('cache-control', 'no-store');
  return { signingSecret };
}

async function deliveries(ctx: AdminContext, req: FastifyRequest<{ Params: IdParams; Querystring: PagingQuery }>) {
  const { automation } = await automationOf(ctx, req);
  const { limit, offset } = req.query;
  const { data, total } = await pageDeliveryAttempts(ctx.db, automation.id, { limit, offset });
  return { data: data.map(attemptView), pagination: pagination(req.query, total) };
}

async function resend(
  ctx: AdminContext,
  req: FastifyRequest<{ Params: IdParams & { eventId: string } }>,
  reply: FastifyReply,
) {
  const { project, automation } = await automationOf(ctx, req);
  if (!automation.enabled)
    throw new DashboardApiError('conflict', `Automation '${automation.id}' is disabled: enable it to deliver again`);
  const { eventId } = req.params;
  if (!(await resendDelivery(ctx.db, project, automation, eventId, byDashboardUser(req))))
    throw new DashboardApiError('not_found', `No event '${eventId}' for automation '${automation.id}'`);
  return reply.code(202).send();
}

export function registerDashboardAutomations(app: FastifyInstance, ctx: AdminContext): void {
  const read = requireSession(ctx, 'viewer');
  const member = requireSession(ctx, 'member');
  const one = '/projects/:project/automations/:id';
  app.get('/projects/:project/automations', { onRequest: read }, (req) => listProjectAutomations(ctx, req));
  app.post<{ Body: CreateBody }>(
    '/projects/:project/automations',
    { onRequest: member, schema: { body: createBody } },
    (req, reply) => create(ctx, req, reply),
  );
  app.patch<{ Params: IdParams; Body: PatchBody }>(
    one,
    { onRequest: member, schema: { body: patchBody } },
    (req, reply) => change(ctx, req, reply),
  );
  app.delete<{ Params: IdParams }>(one, { onRequest: member }, (req, reply) => remove(ctx, req, reply));
  app.post<{ Params: IdParams }>(`${one}/rotate-secret`, { onRequest: member }, (req, reply) =>
    rotateSecret(ctx, req, reply),
  );
  app.get<{ Params: IdParams; Querystring: PagingQuery }>(
    `${one}/deliveries`,
    { onRequest: read, schema: { querystring: PAGING_QUERY_SCHEMA } },
    (req) => deliveries(ctx, req),
  );
  app.post<{ Params: IdParams & { eventId: string } }>(
    `${one}/deliveries/:eventId/resend`,
    { onRequest: member },
    (req, reply) => resend(ctx, req, reply),
  );
}
