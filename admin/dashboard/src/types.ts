// Shapes of the data routes' answers (docs/dashboard.md). Fields the pages do not read are left out.
import type { Point } from '../../../src/observability/metrics/metric-point.ts';

// A metric point is the server's own type: the two builds share the one declaration.
export type { Point };

export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export interface User {
  id: string;
  email: string;
  name?: string | null;
  role: Role;
}

export interface SessionAnswer {
  user: User;
  csrfToken: string;
}

export interface Project {
  id: string;
  name: string;
}

export interface Page<T> {
  data: T[];
  pagination?: Pagination;
}

export interface Pagination {
  total?: number;
  /** At least `total` rows match: the count stopped at its bound (lists counted ahead, docs/dashboard.md). */
  totalIsLowerBound?: boolean;
  limit?: number;
  offset?: number;
  page?: number;
  totalItems?: number;
  totalPages?: number;
}

export interface Series {
  key: string;
  totals: Point;
  points: (Point & { t: string | number })[];
}

export interface Metrics {
  from: string;
  to: string;
  bucketSeconds: number;
  totals: Point;
  series: Series[];
}

export interface GatewayPanels {
  refusals: { code: string; count: number }[];
  cache: { hits: number; lookups: number; hitRate: number | null };
  fallbacks: number;
  benched: { modelGroup: string; deployment: string; until: string }[];
}

export interface Deployment {
  id: string;
  provider: string;
  model?: string;
  healthy: boolean;
  benchedUntil?: string | null;
}

export interface ModelGroup {
  name: string;
  fallback?: string | null;
  deployments: Deployment[];
}
