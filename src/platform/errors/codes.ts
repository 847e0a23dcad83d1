// One table for every gateway error code (docs/api.md, Errors). Status and OpenAI `type` come from here only.

export const GATEWAY_ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  /** A header Node's HTTP parser cannot read (NUL, bare CR or LF, other control characters). */
  invalid_header: 400,
  embeddings_not_supported: 400,
  guardrail_blocked: 400,
  invalid_api_key: 401,
  key_blocked: 401,
  key_expired: 401,
  ip_not_allowed: 403,
  model_not_allowed: 403,
  unknown_route: 404,
  request_timeout: 408,
  budget_unpriced_model: 409,
  request_too_large: 413,
  unsupported_media_type: 415,
  rate_limit_exceeded: 429,
  tokens_limit_exceeded: 429,
  budget_exceeded: 429,
  /** The request headers are past the 16 KB Node accepts. */
  header_too_large: 431,
  internal_error: 500,
  upstream_unreachable: 502,
  upstream_invalid_response: 502,
  no_deployment_available: 503,
  budget_config_invalid: 503,
  guardrail_unavailable: 503,
  gateway_config_stale: 503,
  worker_pool_overloaded: 503,
  upstream_timeout: 504,
} as const;

export type GatewayErrorCode = keyof typeof GATEWAY_ERROR_STATUS;

/** OpenAI error `type` for an HTTP status, as docs/api.md "Errors" lists them. */
export function errorTypeForStatus(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}
