// Dashboard metrics (docs/dashboard.md "Metrics", docs/dashboard-metrics.md): charts and gateway panels read from the
// per-minute rollups the trace writer keeps (src/observability/metrics/).
import type { FastifyInstance } from 'fastify';
import {
  customWindow,
  defaultWindow,
  isWindowName,
  namedWindow,
  WINDOWS,
} from '../../../src/observability/metrics/metric-window.ts';
import { gatewayPanels, metricsChart, trafficBounds } from '../../../src/observability/metrics/metrics-query.ts';
import { withStatementTimeout } from '../../../src/platform/store/database.ts';
import { GROUP_BY, type GroupBy, type MetricWindow } from '../../../src/platform/store/repos/metric-rollups.ts';
import { benchState } from '../../../src/gateway/routing/bench-board.ts';
import type { AdminContext } from '../../context.ts';
import { projectOf } from '../project-scope.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { requireSession } from '../session-guard.ts';

interface WindowQuery {
  window?: string;
  from?: string;
  to?: string;
}

interface MetricsQuery extends WindowQuery {
  groupBy?: GroupBy;
  agent?: string;
  modelGroup?: string;
}

const text = { type: 'string', minLength: 1 };
const windowProperties = {
  window: { enum: Object.keys(WINDOWS) },
  from: { type: 'string', format: 'date-time' },
  to: { type: 'string', format: 'date-time' },
};
const panelsQuery = { type: 'object', properties: windowProperties };
const metricsQuery = {
  type: 'object',
  properties: { ...windowProperties, groupBy: { enum: GROUP_BY }, agent: text, modelGroup: text },
};

const DEFAULT_WINDOW = '24h';

/** The window of a request: `window`, or `from` and `to` together; neither: the last 24 hours. */
function windowOf(q: WindowQuery, now: number): MetricWindow {
  const custom = q.from !== undefined || q.to !== undefined;
  if (custom && q.window !== undefined)
    throw new DashboardApiError('invalid_request', 'Give either window or from and to, not both');
  if (!custom) return namedWindow(q.window !== undefined && isWindowName(q.window) ? q.window : DEFAULT_WINDOW, now);
  if (q.from === undefined || q.to === undefined)
    throw new DashboardApiError('invalid_request', 'A custom range needs both from and to');
  const from = Date.parse(q.from);
  const to = Date.parse(q.to);
  if (!(from < to)) throw new DashboardApiError('invalid_request', 'from must be before to');
  const w = customWindow(from, to);
  if (!w)
    throw new DashboardApiError('invalid_request', 'The range is too long: at most 240 buckets of 6 hours (60 days)');
  return w;
}

/** Deployments benched now (as every replica sees them), by model group. */
async function benchedNow(ctx: AdminContext) {
  const state = await benchState(ctx.bench, ctx.config().model_groups);
  return {
    benched: state.benched.map((b) => ({
      modelGroup: b.group,
      deployment: b.deployment,
      until: new Date(b.until).toISOString(),
    })),
    benchStateError: state.error ?? null,
  };
}

export function registerDashboardMetrics(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireSession(ctx, 'viewer');
  /** The rollups' reads, each limited to store.query_timeout_ms (a query past it answers 422 query_timeout). */
  const reads = () => withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);

  app.get<{ Querystring: MetricsQuery }>(
    '/projects/:project/metrics',
    { onRequest, schema: { querystring: metricsQuery } },
    async (req) => {
      const project = await projectOf(ctx, req);
      const q = req.query;
      return metricsChart(reads(), project.id, windowOf(q, ctx.clock.now()), {
        groupBy: q.groupBy,
        agent: q.agent,
        modelGroup: q.modelGroup,
      });
    },
  );

  // The window the pages open on when the address names none (metric-window.ts defaultWindow).
  app.get('/projects/:project/metrics/default-window', { onRequest }, async (req) => {
    const project = await projectOf(ctx, req);
    const now = ctx.clock.now();
    const { oldestOfLastDay, newest } = await trafficBounds(reads(), project.id, now);
    const iso = (t: number | undefined) => (t === undefined ? null : new Date(t).toISOString());
    return {
      window: defaultWindow(now, oldestOfLastDay, newest),
      oldestTrafficOfLastDay: iso(oldestOfLastDay),
      newestTraffic: iso(newest),
    };
  });

  app.get<{ Querystring: WindowQuery }>(
    '/projects/:project/gateway-panels',
    { onRequest, schema: { querystring: panelsQuery } },
    async (req) => {
      const project = await projectOf(ctx, req);
      const now = ctx.clock.now();
      const panels = await gatewayPanels(reads(), project.id, windowOf(req.query, now));
      return { ...panels, ...(await benchedNow(ctx)) };
    },
  );
}
