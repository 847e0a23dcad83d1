// The public surface for plugin authors: `import { definePlugin, GatewayError, stateSlot } from 'svc/plugin'`.
// Built-in plugins import their contract from here too, so they use nothing a custom plugin could not have: this
// contract, and the services handed to setup. What they import besides is library code of their own domain.
export { definePlugin } from './pipeline/define-plugin.ts';
export { GatewayError } from './errors/gateway-error.ts';
export { stateSlot, type StateSlot } from './pipeline/state.ts';
export type { GatewayErrorCode } from './errors/codes.ts';
export type {
  AdmissionEstimate,
  AttemptOutcome,
  AttemptRecord,
  GatewayResponse,
  JsonResponse,
  PluginDefinition,
  PluginHooks,
  Principal,
  Redaction,
  RequestContext,
  ResponseSource,
  RouteName,
  Services,
  StreamResponse,
  UsageEstimateReason,
} from './pipeline/types.ts';
export type { ChatChunk, JsonObject, Usage } from './openai/wire-types.ts';

// What the services are, and what their calls throw.
export type { Clock } from './pipeline/clock.ts';
export type { BudgetPeriod, DeploymentConfig, GatewayConfig, ModelGroupConfig, PriceConfig } from './config/types.ts';
export {
  CountersUnavailableError,
  projectTag,
  type Admission,
  type AdmissionChecks,
  type Counters,
  type MinuteAdmission,
  type MinuteCheck,
  type PeriodAdjustment,
  type PeriodAdmission,
  type PeriodCheck,
  type Settlement,
  type SharedValues,
} from './store/counters/counters.ts';
export { StoreUnavailableError } from './store/store-unreachable.ts';
export type { Spend, SpendLedger } from './budget/spend-ledger.ts';
export type { BenchBoard, BenchedDeployments } from './routing/bench-board.ts';
export type { ModelGroupRegistry, ModelGroupView } from './routing/model-groups.ts';
export type { ProviderRegistry } from './providers/registry.ts';
export type { ProviderAdapter, ProviderCall, ProviderResult } from './providers/types.ts';
export { UpstreamError, type UpstreamFailure } from './providers/upstream-error.ts';
export type { KeyRecord, KeyStore } from './keys/key-store.ts';
export type { TraceSink } from './tracing/trace-writer.ts';
export type { WorkerPool } from './workers/pool.ts';
export type { Logger } from './telemetry/logger.ts';
