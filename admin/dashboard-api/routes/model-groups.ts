// Dashboard model groups, as the configuration serving now declares them, with each deployment's state: benched
// (cooling down after health signals) until when, as every replica sharing the counters store sees it, and whether
// the router may send it traffic at all.
import type { FastifyInstance } from 'fastify';
import type { DeploymentConfig } from '../../../src/platform/config/types.ts';
import { benchState } from '../../../src/gateway/routing/bench-board.ts';
import type { AdminContext } from '../../context.ts';
import { requireSession } from '../session-guard.ts';

export function registerDashboardModelGroups(app: FastifyInstance, ctx: AdminContext): void {
  function deploymentView(d: DeploymentConfig, benchedUntil: number) {
    // The router's own eligibility rules: no weight or a provider that cannot serve it (missing credentials).
    const unavailable = d.weight <= 0 ? 'weight is 0' : ctx.providers.forDeployment(d).unavailableReason(d);
    return {
      id: d.id,
      provider: d.provider,
      model: d.model ?? d.deployment ?? null,
      weight: d.weight,
      healthy: benchedUntil === 0 && unavailable === undefined,
      benchedUntil: benchedUntil === 0 ? null : new Date(benchedUntil).toISOString(),
      unavailableReason: unavailable ?? null,
    };
  }

  app.get('/model-groups', { onRequest: requireSession(ctx, 'viewer') }, async () => {
    const groups = ctx.config().model_groups;
    const state = await benchState(ctx.bench, groups);
    const until = new Map(state.benched.map((b) => [b.deployment, b.until]));
    return {
      data: groups.map((g) => ({
        name: g.name,
        fallback: g.fallback ?? null,
        routing: g.routing,
        deployments: g.deployments.map((d) => deploymentView(d, until.get(d.id) ?? 0)),
      })),
      benchStateError: state.error ?? null,
    };
  });
}
