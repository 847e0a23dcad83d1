// The dashboard data routes under {dashboard_url}api = /dashboard/api (docs/dashboard.md): their own error envelope and
// not-found answer, encapsulated in this scope. Every route takes a session (session-guard.ts), never an API key.
// One file per area; add yours with one line in the list below.
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../context.ts';
import { registerDashboardAgents } from './agents.ts';
import { registerDashboardAutomations } from './automations.ts';
import { registerDashboardBudgets } from './budgets.ts';
import { registerDashboardKeys } from './keys.ts';
import { registerDashboardMetrics } from './metrics.ts';
import { registerDashboardModelGroups } from './model-groups.ts';
import { registerDashboardProjectServing } from './project-serving.ts';
import { registerDashboardPrompts } from './prompts.ts';
import { registerDashboardTraces } from './traces.ts';
import { dashboardErrorHandler, dashboardNotFoundHandler } from './error-handler.ts';
import { registerOverviewRoutes } from './overview-routes.ts';
import { registerSessionRoutes } from './session-routes.ts';
import { registerUserRoutes } from './user-routes.ts';

export function registerDashboardApi(app: FastifyInstance, ctx: AdminContext): void {
  app.setErrorHandler(dashboardErrorHandler(ctx.log));
  app.setNotFoundHandler(dashboardNotFoundHandler);
  // Session, users, projects, audit log.
  registerSessionRoutes(app, ctx);
  registerUserRoutes(app, ctx);
  registerOverviewRoutes(app, ctx);
  // Data routes (metrics, traces, prompts, automations, gateway): one line per file, below this one.
  registerDashboardMetrics(app, ctx);
  registerDashboardTraces(app, ctx);
  registerDashboardPrompts(app, ctx);
  registerDashboardAutomations(app, ctx);
  registerDashboardKeys(app, ctx);
  registerDashboardAgents(app, ctx);
  registerDashboardModelGroups(app, ctx);
  registerDashboardBudgets(app, ctx);
  registerDashboardProjectServing(app, ctx);
}
