// Errors of the dashboard data routes (/dashboard/api): `{ error: { code, message } }` (docs/dashboard.md "Error envelope").
import type { ValidationIssue } from '../../src/platform/validation/validation-issue.ts';

export const DASHBOARD_ERROR_STATUS = {
  invalid_request: 400,
  /** A header Node's HTTP parser cannot read (NUL, bare CR or LF, other control characters). */
  invalid_header: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  csrf_failed: 403,
  permission_denied: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  /** A read ran out of its time (store.query_timeout_ms): narrow it rather than retry it. */
  query_timeout: 422,
  rate_limited: 429,
  header_too_large: 431,
  internal_error: 500,
  /** The store cannot be reached (or has not been since the process started): retry shortly. */
  service_unavailable: 503,
} as const;

export type DashboardErrorCode = keyof typeof DASHBOARD_ERROR_STATUS;

export interface DashboardErrorBody {
  error: { code: DashboardErrorCode; message: string };
}

export class DashboardApiError extends Error {
  readonly code: DashboardErrorCode;
  readonly status: number;
  /** Seconds to wait, sent as `retry-after` (rate_limited). */
  readonly retryAfter?: number;

  constructor(code: DashboardErrorCode, message: string, options: { retryAfter?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = DASHBOARD_ERROR_STATUS[code];
    this.retryAfter = options.retryAfter;
  }

  body(): DashboardErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}

/** 400 invalid_request naming each problem a store rule found (`path: message; …`). */
export const invalidIssues = (issues: readonly ValidationIssue[]) =>
  new DashboardApiError(
    'invalid_request',
    issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; '),
  );
