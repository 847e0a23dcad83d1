// Dashboard gateway keys of a project: list (never a hash or plaintext; keys declared in gateway.yaml first, read-only),
// mint (the minting API's rules, mint-key.ts), block and unblock, rotate with a grace window, delete. Each change is
// audited as `dashboard:<email>` and applied to this process's key cache at once.
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BudgetPeriod, KeyConfig } from '../../src/config/types.ts';
import { generateKey, hashKey, keyExpiry } from '../../src/keys/key-store.ts';
import { mintGatewayKey, MintKeyError, parseMintKeyRequest } from '../../src/keys/mint-key.ts';
import {
  deleteGatewayKey,
  getGatewayKey,
  listGatewayKeys,
  rotateGatewayKey,
  setGatewayKeyBlocked,
  type StoredGatewayKey,
} from '../../src/store/repos/gateway-keys.ts';
import { listAgents } from '../../src/store/repos/agents.ts';
import type { AdminContext } from '../context.ts';
import { auditDashboardChange } from './dashboard-audit.ts';
import { refreshKeyCache } from './key-cache.ts';
import { found, projectOf } from './project-scope.ts';
import { dashboardActor, dashboardUserOf, DashboardApiError, requireSession } from './session-guard.ts';

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

/** A key without its hash; `state` per spec part 3 (blocked includes a suspended agent's keys). */
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

export function registerDashboardKeys(app: FastifyInstance, ctx: AdminContext): void {
  const change = requireSession(ctx, 'member');

  const suspendedAgents = async (projectId: string) =>
    new Set((await listAgents(ctx.db, projectId)).filter((a) => a.status === 'suspended').map((a) => a.id));

  async function viewOf(k: StoredGatewayKey) {
    return keyView(stored(k), ctx.clock.now(), await suspendedAgents(k.projectId));
  }

  const configuredKeys = (projectId: string) => ctx.config().keys.filter((k) => k.project === projectId);

  async function keyOf(req: FastifyRequest<{ Params: IdParams }>) {
    const project = await projectOf(ctx, req);
    const kept = await getGatewayKey(ctx.db, project.id, req.params.id);
    if (!kept && configuredKeys(project.id).some((k) => k.alias === req.params.id)) {
      throw new DashboardApiError(
        'conflict',
        `Gateway key '${req.params.id}' is declared in gateway.yaml; change it in the file`,
      );
    }
    return { project, key: found(kept, `gateway key '${req.params.id}'`) };
  }

  app.get('/projects/:project/keys', { onRequest: requireSession(ctx, 'viewer') }, async (req) => {
    const project = await projectOf(ctx, req);
    const [keys, suspended] = await Promise.all([listGatewayKeys(ctx.db, project.id), suspendedAgents(project.id)]);
    const now = ctx.clock.now();
    return {
      data: [...configuredKeys(project.id).map(declared), ...keys.map(stored)].map((k) => keyView(k, now, suspended)),
    };
  });

  app.post('/projects/:project/keys', { onRequest: change }, async (req, reply) => {
    const project = await projectOf(ctx, req);
    try {
      const minted = await mintGatewayKey(
        { db: ctx.db, now: ctx.clock.now(), modelGroupExists: (name) => ctx.modelGroups().get(name) !== undefined },
        {
          project,
          request: parseMintKeyRequest(req.body),
          actor: dashboardActor(dashboardUserOf(req)),
          source: 'dashboard',
        },
      );
      await refreshKeyCache(ctx);
      reply.code(201).header('cache-control', 'no-store');
      return {
        id: minted.id,
        key: minted.key,
        alias: minted.alias,
        agentId: minted.agentId,
        modelGroups: minted.modelGroups,
        expiresAt: minted.expiresAt,
      };
    } catch (err) {
      if (err instanceof MintKeyError)
        throw new DashboardApiError(err.conflict ? 'conflict' : 'invalid_request', err.message, { cause: err });
      throw err;
    }
  });

  for (const [verb, blocked] of [
    ['block', true],
    ['unblock', false],
  ] as const) {
    app.post<{ Params: IdParams }>(`/projects/:project/keys/:id/${verb}`, { onRequest: change }, async (req) => {
      const { project, key } = await keyOf(req);
      const changed = await ctx.db.transaction(async (tx) => {
        const k = await setGatewayKeyBlocked(tx, project.id, key.id, blocked);
        await auditDashboardChange(tx, req, project, {
          action: `gateway_key.${verb}`,
          resourceType: 'gateway_key',
          resourceId: key.id,
          details: { alias: key.alias },
        });
        return k!;
      });
      await refreshKeyCache(ctx);
      return { key: await viewOf(changed) };
    });
  }

  app.post<{ Params: IdParams }>('/projects/:project/keys/:id/rotate', { onRequest: change }, async (req, reply) => {
    const { project, key } = await keyOf(req);
    if (key.rotatedAt)
      throw new DashboardApiError(
        'conflict',
        `Gateway key '${key.alias}' was replaced by a rotation and only lasts its grace window; rotate the key that replaced it`,
      );
    const graceHours = graceHoursOf(req.body);
    const plaintext = generateKey();
    const rotated = await ctx.db.transaction(async (tx) => {
      const r = await rotateGatewayKey(tx, project.id, key.id, {
        keySha256: hashKey(plaintext).toString('hex'),
        graceId: randomUUID(),
        // The alias stays with the key; the old plaintext's row gets a derived one (aliases are unique per project).
        graceAlias: `${key.alias}.rotated-${randomBytes(4).toString('hex')}`,
        rotatedAt: new Date(ctx.clock.now()).toISOString(),
        graceHours,
      });
      await auditDashboardChange(tx, req, project, {
        action: 'gateway_key.rotate',
        resourceType: 'gateway_key',
        resourceId: key.id,
        details: { alias: key.alias, graceHours, previousKeyId: r!.grace.id },
      });
      return r!;
    });
    await refreshKeyCache(ctx);
    reply.header('cache-control', 'no-store');
    const [suspended, now] = [await suspendedAgents(project.id), ctx.clock.now()];
    return {
      key: keyView(stored(rotated.key), now, suspended),
      plaintext,
      previous: keyView(stored(rotated.grace), now, suspended),
    };
  });

  app.delete<{ Params: IdParams }>('/projects/:project/keys/:id', { onRequest: change }, async (req, reply) => {
    const { project, key } = await keyOf(req);
    await ctx.db.transaction(async (tx) => {
      await deleteGatewayKey(tx, project.id, key.id);
      await auditDashboardChange(tx, req, project, {
        action: 'gateway_key.delete',
        resourceType: 'gateway_key',
        resourceId: key.id,
        details: { alias: key.alias },
      });
    });
    await refreshKeyCache(ctx);
    return reply.code(204).send();
  });
}
