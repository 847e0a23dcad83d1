// The public surface for plugin authors: `import { definePlugin, GatewayError, stateSlot } from 'svc/plugin'`.
// Built-in plugins import their contract from here too, so they use nothing a custom plugin could not have: this
// contract, and the services handed to setup. What they import besides is library code of their own domain.
export { definePlugin } from '../gateway/pipeline/define-plugin.ts';
export { GatewayError } from '../platform/errors/gateway-error.ts';
export { stateSlot, type StateSlot } from '../gateway/pipeline/state.ts';
export type { GatewayErrorCode } from '../platform/errors/codes.ts';
export type {
  AdmissionEstimate,
  AttemptOutcome,
  AttemptRecord,
  Consumption,
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
  StreamedAnswer,
  StreamResponse,
  UsageEstimateReason,
} from '../gateway/pipeline/types.ts';
export type { ChatChunk, JsonObject, Usage } from '../platform/openai/wire-types.ts';

// What the services are, and what their calls throw.
export type { Clock } from '../platform/clock.ts';
export type {
  BudgetPeriod,
  DeploymentConfig,
  GatewayConfig,
  ModelGroupConfig,
  PriceConfig,
} from '../platform/config/types.ts';
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
} from '../platform/store/counters/counters.ts';
export { StoreUnavailableError } from '../platform/store/store-unreachable.ts';
export type { Spend, SpendLedger } from '../gateway/budget/spend-ledger.ts';
export type { BenchBoard, BenchedDeployments } from '../gateway/routing/bench-board.ts';
export type { ModelGroupRegistry, ModelGroupView } from '../gateway/routing/model-groups.ts';
export type { ProviderRegistry } from '../gateway/providers/registry.ts';
export type { ProviderAdapter, ProviderCall, ProviderResult } from '../gateway/providers/types.ts';
export { UpstreamError, type UpstreamFailure } from '../gateway/providers/upstream-error.ts';
export type { KeyRecord, KeyStore } from '../gateway/keys/key-store.ts';
export type { TraceSink } from '../gateway/tracing/trace-writer.ts';
export type { WorkerPool } from '../platform/workers/pool.ts';
export type { Logger } from '../platform/telemetry/logger.ts';
