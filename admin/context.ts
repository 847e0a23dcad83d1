import type { GatewayConfig } from '../src/platform/config/types.ts';
import type { StoredKeyStore } from '../src/gateway/keys/stored-key-store.ts';
import type { Clock } from '../src/platform/clock.ts';
import type { Counters } from '../src/platform/store/counters/counters.ts';
import type { Database } from '../src/platform/store/database.ts';
import type { Logger } from '../src/platform/telemetry/logger.ts';
import type { PromptVersionEvents } from '../src/platform/store/repos/prompt-version-events.ts';
import type { SpendLedger, ProviderRegistry, BenchBoard, ModelGroupRegistry } from '../src/plugin-api/services.ts';

/** What the admin listener's routes use: the store, the clock, and the configuration currently serving. */
export interface AdminContext {
  db: Database;
  clock: Clock;
  log: Logger;
  config(): GatewayConfig;
  modelGroups(): ModelGroupRegistry;
  /**
   * Gateway keys served from memory; call `refresh()` after changing keys or agents so every thread of this process
   * serving the gateway sees it at once.
   */
  keys: Pick<StoredKeyStore, 'refresh'>;
  /**
   * Where prompt-version changes are recorded, inside the changing transaction (docs/webhooks.md); none: not recorded.
   */
  promptEvents?: PromptVersionEvents;
  /** Gateway state the dashboard shows: benched deployments, deployments a provider cannot serve, budget spend. */
  bench: Pick<BenchBoard, 'benched'>;
  providers: Pick<ProviderRegistry, 'forDeployment'>;
  spend: Pick<SpendLedger, 'spent'>;
  /** The counters store: the REST API's rate limit, shared by every replica when it is Redis. */
  counters: Pick<Counters, 'admitRate'>;
}
