// The shape of gateway.yaml after interpolation, validation and defaults (schemas/gateway.schema.json).

/** USD per million tokens of each price component; an optional rate left out costs what its base rate costs. */
export interface PriceRates {
  input_per_mtok: number;
  output_per_mtok: number;
  /** Cache reads; else input_per_mtok. */
  cached_input_per_mtok?: number;
  /** 5-minute cache writes (Anthropic's premium) and writes reported without a duration; else input_per_mtok. */
  cache_write_per_mtok?: number;
  /** 1-hour cache writes; else cache_write_per_mtok. */
  cache_write_1h_per_mtok?: number;
  /** Reasoning tokens; else output_per_mtok. */
  reasoning_per_mtok?: number;
}

export interface PriceConfig extends PriceRates {
  /** The rates of a request whose prompt (cache reads and writes included) exceeds `above_prompt_tokens`. */
  long_context?: PriceRates & { above_prompt_tokens: number };
}

export type ProviderName = 'mock' | 'openai' | 'azure' | 'anthropic' | 'bedrock' | 'vertex';

export interface DeploymentConfig {
  id: string;
  provider: ProviderName;
  model?: string;
  weight: number;
  base_url?: string;
  api_key?: string;
  deployment?: string;
  api_version?: string;
  headers?: Record<string, string>;
  timeout_ms?: number;
  /** false when the server behind an OpenAI-wire deployment has no embeddings API. */
  embeddings?: boolean;
  price?: PriceConfig;
  mock?: { latency_ms: number; dimensions: number };
  /** Anthropic-family deployments: max_tokens when the request sets none. */
  default_max_tokens?: number;
  anthropic_version?: string;
  aws?: { region: string; access_key_id?: string; secret_access_key?: string; session_token?: string };
  gcp?: { project: string; location: string; credentials_json?: string; credentials_file?: string; token_url?: string };
}

/** How a model group chooses among its eligible deployments (docs/configuration.md "Routing strategies"). */
export type RoutingStrategy = 'weighted' | 'least-busy' | 'latency' | 'cost' | 'prefix-affinity';

export interface RoutingConfig {
  strategy: RoutingStrategy;
  retries: number;
  timeout_ms: number;
  bench_ms: number;
  max_backoff_ms: number;
}

export interface ModelGroupConfig {
  name: string;
  created_at?: string;
  owned_by?: string;
  routing: RoutingConfig;
  fallback?: string;
  deployments: DeploymentConfig[];
}

export interface KeyConfig {
  alias: string;
  key?: string;
  key_sha256?: string;
  project: string;
  agent?: string;
  model_groups: string[];
  expires_at?: string;
  rotated_at?: string;
  rotation_grace_hours: number;
  blocked: boolean;
  allowed_networks?: string[];
  rpm?: number;
  tpm?: number;
  budget_usd?: number;
  budget_period: BudgetPeriod;
  unit?: string;
}

export type BudgetPeriod = 'total' | 'daily' | 'monthly';

export interface BudgetConfig {
  usd: number;
  period: BudgetPeriod;
  mode: 'hard' | 'soft';
}

/** An organization unit: a node of a tree inside one project, with budgets of its own. */
export interface OrgUnitConfig {
  id: string;
  project: string;
  name?: string;
  parent?: string;
  budgets: BudgetConfig[];
}

export interface ProjectConfig {
  id: string;
  name?: string;
  max_key_expiry_hours: number;
  ingestion_only: boolean;
  /** False refuses every gateway key of the project (401 invalid_api_key); the dashboard can turn it off too. */
  serving: boolean;
  rpm?: number;
  tpm?: number;
  budgets: BudgetConfig[];
}

/** An agent declared in gateway.yaml; created or updated in the store at start. */
export interface AgentConfig {
  id: string;
  project: string;
  name: string;
  version: string;
  framework: string;
  model: string;
  status: 'active' | 'suspended';
  budgets: BudgetConfig[];
}

export interface PluginEntry {
  use: string;
  config?: Record<string, unknown>;
}

/** `tracing.otlp`: every gateway trace exported to an OpenTelemetry collector (src/gateway/tracing/otlp/). */
export interface OtlpExportConfig {
  endpoint: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  timeout_ms: number;
  queue_size: number;
  batch_size: number;
  flush_ms: number;
  service_name: string;
  resource_attributes: Record<string, string | number | boolean>;
}

export interface GatewayConfig {
  version: 1;
  server: {
    host: string;
    admin_host: string;
    port: number;
    admin_port: number;
    max_body_bytes: number;
    /**
     * A request whose declared body is at least this size goes to the large-request thread (runtime/gateway-threads.ts);
     * 0: none started, every request served where it arrived.
     */
    large_request_bytes: number;
    /** Threads serving the gateway port (runtime/gateway-threads.ts); `auto`: one per core the process may use. */
    workers: 'auto' | number;
    drain_timeout_ms: number;
    watch_config: boolean;
    request_timeout_ms: number;
    headers_timeout_ms: number;
    max_connections: number;
  };
  store: {
    postgres_url: string;
    data_dir: string;
    redis_url: string;
    redis_prefix: string;
    key_poll_ms: number;
    max_key_staleness_s: number;
    trace_queue_capacity: number;
    trace_batch_size: number;
    /** Time limit of each store query behind the REST and public API reads (lists and gets). */
    query_timeout_ms: number;
    /** Empty: LLM connection secrets are encrypted with a key generated once and kept in the store. */
    encryption_key: string;
  };
  /** The dashboard on the admin listener (docs/dashboard.md). */
  dashboard: { session_hours: number };
  /** Gateway traces beyond the store: export to an OpenTelemetry collector when `otlp` is set. */
  tracing: { otlp?: OtlpExportConfig };
  /** Delivery of prompt-version automations (docs/webhooks.md). */
  webhooks: {
    allow_private_networks: boolean;
    allowed_hosts: string[];
    timeout_ms: number;
    max_attempts: number;
    retry_base_ms: number;
    retry_max_ms: number;
    poll_ms: number;
    pagerduty_url: string;
    retention_days: number;
  };
  /** The versioned REST API ({base_url}/v1): token bucket per API key. */
  api: { rate_limit: { requests_per_minute: number; burst: number } };
  organization: { id: string; name: string };
  projects: ProjectConfig[];
  model_groups: ModelGroupConfig[];
  keys: KeyConfig[];
  agents: AgentConfig[];
  org_units: OrgUnitConfig[];
  plugins: PluginEntry[];
}
