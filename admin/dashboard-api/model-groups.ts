// Dashboard model groups, as the configuration serving now declares them, with each deployment's state: benched
// (cooling down after health signals) until when, and whether the router may send it traffic at all.
import type { FastifyInstance } from 'fastify';
import type { DeploymentConfig } from '../../src/config/types.ts';
import type { AdminContext } from '../context.ts';
import { requireSession } from './session-guard.ts';

export function registerDashboardModelGroups(app: FastifyInstance, ctx: AdminContext): void {
  function deploymentView(d: DeploymentConfig, now: number) {
    const benchedUntil = ctx.bench.benchedUntil(d.id, now);
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
    const now = ctx.clock.now();
    return {
      data: ctx.config().model_groups.map((g) => ({
        name: g.name,
        fallback: g.fallback ?? null,
        routing: g.routing,
        deployments: g.deployments.map((d) => deploymentView(d, now)),
      })),
    };
  });
}
