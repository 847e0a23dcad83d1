// The public surface for plugin authors: `import { definePlugin, GatewayError, stateSlot } from 'svc/plugin'`.
// Built-in plugins import from here and nowhere else in svc (a suite check holds them to it), so they use nothing a
// custom plugin could not have. What they import besides is library code of their own domain.

// The contract: a plugin's definition, its hooks and the request context they see (contract.ts).
export * from './contract.ts';
export { definePlugin, type PluginDefinition } from './define-plugin.ts';
export { stateSlot, type StateSlot } from './state.ts';

// The services handed to setup, and the shapes behind them (services.ts).
export * from './services.ts';
export type { Clock } from '../platform/clock.ts';
export type { WorkerPool } from '../platform/workers/pool.ts';
export type { Logger } from '../platform/telemetry/logger.ts';
export type {
  BudgetConfig,
  BudgetPeriod,
  DeploymentConfig,
  GatewayConfig,
  ModelGroupConfig,
  PriceConfig,
} from '../platform/config/types.ts';
export {
  groupTag,
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
export { periodOfId } from '../platform/store/counters/periods.ts';

// What a plugin's calls throw, and the refusal a request ended with (errors.ts).
export * from './errors.ts';

// The words two built-ins share: rate-limit's minute checks admitted in budget's counters step, the budgets a key is
// held to (also listed by the dashboard), and the check of a provider's reported usage.
export { admitsWithBudget, minuteHandoff, type MinuteHandoff } from './admission-handoff.ts';
export { BudgetChains, budgetsOf, type ChainBudget } from './budget-chain.ts';
export { checkedUsage, isTokenCount, USAGE_TOKENS_MAX } from './usage-check.ts';

// Prices, costs and token estimates, as the gateway computes them for traces and budgets.
export { costOf, costOfTokens } from '../platform/pricing/cost.ts';
export { deploymentPrice } from '../platform/pricing/prices.ts';
export { choicesAnswerChars, estimateCharTokens } from '../platform/pricing/token-estimate.ts';

// Client networks: whether an address is inside a key's allowed ranges.
export { addressAllowed } from '../platform/networks.ts';
