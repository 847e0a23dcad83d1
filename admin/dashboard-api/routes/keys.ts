// Dashboard gateway keys of a project: list (never a hash or plaintext; keys declared in gateway.yaml first, read-only),
// mint (the minting API's rules, mint-key.ts), block and unblock, rotate with a grace window, delete. Each change is
// audited as `dashboard:<email>` and applied to this process's key cache at once.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BudgetPeriod, KeyConfig } from '../../../src/platform/config/types.ts';
import { removeKey, rotateKey, setKeyBlocked } from '../../../src/gateway/keys/gateway-key-changes.ts';
import { keyExpiryWarnings } from '../../../src/gateway/keys/expiry-warnings.ts';
import { keyExpiry } from '../../../src/gateway/keys/key-store.ts';
import {
  mintedKeyAnswer,
  mintGatewayKey,
  MintKeyError,
  parseMintKeyRequest,
} from '../../../src/gateway/keys/mint-key.ts';
import { listAgents } from '../../../src/platform/store/repos/agents.ts';
import {
  getGatewayKey,
  listGatewayKeys,
  type StoredGatewayKey,
} from '../../../src/platform/store/repos/gateway-keys.ts';
import type { AdminContext } from '../../context.ts';
import { byDashboardUser } from '../dashboard-audit.ts';
import { refreshKeyCache } from '../key-cache.ts';
import { found, projectOf } from '../project-scope.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { requireSession } from '../session-guard.ts';

type IdParams = { project: string; id: string };

/** The grace window when a rotation names none: a day for clients to pick up the new key. */
const DEFAULT_GRACE_HOURS = 24;
const MAX_GRACE_HOURS = 720;

/** The grace window asked for; the body is optional, so it is checked here rather than by a body schema. */
function graceHoursOf(body: unknown): number {
  const asked = (body as { graceHours?: unknown } | undefined | null)?.graceHours;
  if (asked === undefined) return DEFAULT_GRACE_HOURS;
  if (typeof asked !== 'number' || !(asked >= 0 && asked <= MAX_GRACE_HOURS)) {
    throw new DashboardApiError('invalid_request', `graceHours must be a number from 0 to ${MAX_GRACE_HOURS}`);
  }
  return asked;
}

type KeyState = 'active' | 'blocked' | 'expired';

/** What the list shows of a key, kept in the store or declared in gateway.yaml. */
type ListedKey = Pick<
  StoredGatewayKey,
  | 'id'
  | 'alias'
  | 'agentId'
  | 'modelGroups'
  | 'expiresAt'
  | 'rotatedAt'
  | 'rotationGraceHours'
  | 'blocked'
  | 'allowedNetworks'
  | 'rpm'
  | 'tpm'
  | 'budgetUsd'
> & { budgetPeriod: BudgetPeriod; source: string; createdAt: string | null; readOnly: boolean };

// Minted keys have one budget over their whole life (mint-key.ts).
const stored = (k: StoredGatewayKey): ListedKey => ({ ...k, budgetPeriod: 'total', readOnly: false });

/** A key of gateway.yaml: its id is its alias, and it is changed in the file only. */
const declared = (k: KeyConfig): ListedKey => ({
  id: k.alias,
  alias: k.alias,
  agentId: k.agent,
  modelGroups: k.model_groups,
  expiresAt: k.expires_at,
  rotatedAt: k.rotated_at,
  rotationGraceHours: k.rotation_grace_hours,
  blocked: k.blocked,
  allowedNetworks: k.allowed_networks,
  rpm: k.rpm,
  tpm: k.tpm,
  budgetUsd: k.budget_usd,
  budgetPeriod: k.budget_period,
  source: 'config',
  createdAt: null,
  readOnly: true,
});

/**
 * A key without its hash; `state` as docs/dashboard.md "Gateway" lists it (blocked includes a suspended agent's keys).
 */
function keyView(k: ListedKey, now: number, suspendedAgents: ReadonlySet<string>) {
  const expiresAtMs = keyExpiry({
    expires_at: k.expiresAt,
    rotated_at: k.rotatedAt,
    rotation_grace_hours: k.rotationGraceHours,
  });
  const state: KeyState =
    k.blocked || (k.agentId !== undefined && suspendedAgents.has(k.agentId))
      ? 'blocked'
      : expiresAtMs !== undefined && now >= expiresAtMs
        ? 'expired'
        : 'active';
  return {
    id: k.id,
    alias: k.alias,
    agentId: k.agentId ?? null,
    modelGroups: k.modelGroups,
    expiresAt: k.expiresAt ?? null,
    rotatedAt: k.rotatedAt ?? null,
    rotationGraceHours: k.rotationGraceHours,
    /** When a rotated key stops working. */
    graceEndsAt: k.rotatedAt
      ? new Date(Date.parse(k.rotatedAt) + k.rotationGraceHours * 3_600_000).toISOString()
      : null,
    blocked: k.blocked,
    state,
    allowedNetworks: k.allowedNetworks ?? null,
    rpm: k.rpm ?? null,
    tpm: k.tpm ?? null,
    budgetUsd: k.budgetUsd ?? null,
    budgetPeriod: k.budgetUsd === undefined ? null : k.budgetPeriod,
    source: k.source,
    createdAt: k.createdAt,
    readOnly: k.readOnly,
  };
}

const suspendedAgents = async (ctx: AdminContext, projectId: string) =>
  new Set((await listAgents(ctx.db, projectId)).filter((a) => a.status === 'suspended').map((a) => a.id));

const configuredKeys = (ctx: AdminContext, projectId: string) =>
  ctx.config().keys.filter((k) => k.project === projectId);

/** The stored key of `:id` in the project; 409 for a key of gateway.yaml, 404 for none. */
async function keyOf(ctx: AdminContext, req: FastifyRequest<{ Params: IdParams }>) {
  const project = await projectOf(ctx, req);
  const kept = await getGatewayKey(ctx.db, project.id, req.params.id);
  if (!kept && configuredKeys(ctx, project.id).some((k) => k.alias === req.params.id)) {
    throw new DashboardApiError(
      'conflict',
      `Gateway key '${req.params.id}' is declared in gateway.yaml; change it in the file`,
    );
  }
  return { project, key: found(kept, `gateway key '${req.params.id}'`) };
}

async function listKeys(ctx: AdminContext, req: FastifyRequest) {
  const project = await projectOf(ctx, req);
  const [keys, suspended] = await Promise.all([listGatewayKeys(ctx.db, project.id), suspendedAgents(ctx, project.id)]);
  const now = ctx.clock.now();
  const configured = configuredKeys(ctx, project.id);
  return {
    data: [...configured.map(declared), ...keys.map(stored)].map((k) => keyView(k, now, suspended)),
    // What start and reload log about the project's keys of gateway.yaml; minted keys show their expiry in the list.
    expiryWarnings: keyExpiryWarnings(configured, now),
  };
}

async function mintKey(ctx: AdminContext, req: FastifyRequest, reply: FastifyReply) {
  const project = await projectOf(ctx, req);
  try {
    const minted = await mintGatewayKey(
      { db: ctx.db, now: ctx.clock.now(), modelGroupExists: (name) => ctx.modelGroups().get(name) !== undefined },
      { project, request: parseMintKeyRequest(req.body), actor: byDashboardUser(req).actor, source: 'dashboard' },
    );
    await refreshKeyCache(ctx);
    reply.code(201).header('cache-control', 'no-store');
    return mintedKeyAnswer(minted);
  } catch (err) {
    if (err instanceof MintKeyError)
      throw new DashboardApiError(err.conflict ? 'conflict' : 'invalid_request', err.message, { cause: err });
    throw err;
  }
}

async function blockKey(ctx: AdminContext, req: FastifyRequest<{ Params: IdParams }>, blocked: boolean) {
  const { project, key } = await keyOf(ctx, req);
  const changed = await setKeyBlocked(ctx.db, project, key, blocked, byDashboardUser(req));
  await refreshKeyCache(ctx);
  return { key: keyView(stored(changed), ctx.clock.now(), await suspendedAgents(ctx, changed.projectId)) };
}

async function rotate(ctx: AdminContext, req: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const { project, key } = await keyOf(ctx, req);
  if (key.rotatedAt)
    throw new DashboardApiError(
      'conflict',
      `Gateway key '${key.alias}' was replaced by a rotation and only lasts its grace window; rotate the key that replaced it`,
    );
  const graceHours = graceHoursOf(req.body);
  const rotated = await rotateKey(ctx.db, project, key, { graceHours, now: ctx.clock.now() }, byDashboardUser(req));
  await refreshKeyCache(ctx);
  reply.header('cache-control', 'no-store');
  const [suspended, now] = [await suspendedAgents(ctx, project.id), ctx.clock.now()];
  return {
    key: keyView(stored(rotated.key), now, suspended),
    plaintext: rotated.plaintext,
    previous: keyView(stored(rotated.grace), now, suspended),
  };
}

async function remove(ctx: AdminContext, req: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply) {
  const { project, key } = await keyOf(ctx, req);
  await removeKey(ctx.db, project, key, byDashboardUser(req));
  await refreshKeyCache(ctx);
  return reply.code(204).send();
}

export function registerDashboardKeys(app: FastifyInstance, ctx: AdminContext): void {
  const change = requireSession(ctx, 'member');
  app.get('/projects/:project/keys', { onRequest: requireSession(ctx, 'viewer') }, (req) => listKeys(ctx, req));
  app.post('/projects/:project/keys', { onRequest: change }, (req, reply) => mintKey(ctx, req, reply));
  for (const [verb, blocked] of [
    ['block', true],
    ['unblock', false],
  ] as const) {
    app.post<{ Params: IdParams }>(`/projects/:project/keys/:id/${verb}`, { onRequest: change }, (req) =>
      blockKey(ctx, req, blocked),
    );
  }
  app.post<{ Params: IdParams }>('/projects/:project/keys/:id/rotate', { onRequest: change }, (req, reply) =>
    rotate(ctx, req, reply),
  );
  app.delete<{ Params: IdParams }>('/projects/:project/keys/:id', { onRequest: change }, (req, reply) =>
    remove(ctx, req, reply),
  );
}
