// The dashboard data routes under {dashboard_url}api = /dashboard/api (docs/dashboard.md): their own error envelope and
// not-found answer, encapsulated in this scope. Every route takes a session (session-guard.ts), never an API key.
// One file per area; add yours with one line in the list below.
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../context.ts';
import { registerDashboardAgents } from './routes/agents.ts';
import { registerDashboardAnnotationQueueItems } from './routes/annotation-queue-items.ts';
import { registerDashboardAnnotationQueues } from './routes/annotation-queues.ts';
import { registerDashboardAutomations } from './routes/automations.ts';
import { registerDashboardBudgets } from './routes/budgets.ts';
import { registerDashboardDatasets } from './routes/datasets.ts';
import { registerDashboardKeys } from './routes/keys.ts';
import { registerDashboardMetrics } from './routes/metrics.ts';
import { registerDashboardModelGroups } from './routes/model-groups.ts';
import { registerDashboardProjectApiKeys } from './routes/project-api-keys.ts';
import { registerDashboardProjectServing } from './routes/project-serving.ts';
import { registerDashboardPrompts } from './routes/prompts.ts';
import { registerDashboardScoreConfigs } from './routes/score-configs.ts';
import { registerDashboardScores } from './routes/scores.ts';
import { registerDashboardTraces } from './routes/traces.ts';
import { registerDashboardSessions } from './routes/trace-sessions.ts';
import { registerDashboardTraceUsers } from './routes/trace-users.ts';
import { dashboardErrorHandler, dashboardNotFoundHandler } from './error-handler.ts';
import { registerOverviewRoutes } from './routes/overview.ts';
import { registerSessionRoutes } from './routes/session.ts';
import { registerUserRoutes } from './routes/users.ts';

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
  registerDashboardProjectApiKeys(app, ctx);
  registerDashboardSessions(app, ctx);
  registerDashboardTraceUsers(app, ctx);
  registerDashboardScores(app, ctx);
  registerDashboardScoreConfigs(app, ctx);
  registerDashboardAnnotationQueues(app, ctx);
  registerDashboardAnnotationQueueItems(app, ctx);
  registerDashboardDatasets(app, ctx);
}
