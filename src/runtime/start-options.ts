import type { Dispatcher } from 'undici';
import type { Env } from '../platform/config/interpolate.ts';
import type { GeneratedKey } from '../gateway/keys/key-store.ts';
import type { Clock } from '../platform/clock.ts';
import type { CreatedApiKey } from '../platform/store/repos/api-keys.ts';
import type { Logger } from '../platform/telemetry/logger.ts';
import type { FirstOwner } from '../observability/users/first-owner.ts';
import type { PromptVersionEvents } from '../platform/store/repos/prompt-version-events.ts';
import type { ServiceRole } from './service-role.ts';

export interface StartOptions<R extends ServiceRole = 'all'> {
  /** What this process serves (default `all`). */
  role?: R;
  /** Path of gateway.yaml; or `configText` for an in-memory config (tests). */
  configPath?: string;
  configText?: string;
  /** Directory relative paths resolve against when `configText` is used. */
  baseDir?: string;
  env?: Env;
  port?: number;
  adminPort?: number;
  host?: string;
  /** Threads serving the gateway port (default: `server.workers`); `auto`: one per core the process may use. */
  workers?: 'auto' | number;
  log?: Logger;
  clock?: Clock;
  dispatcher?: Dispatcher;
  /** Watch the config file and reload on change (default: `server.watch_config`). */
  watch?: boolean;
  processMetrics?: boolean;
  /** Called with each key generated on start or reload: the only time its plaintext exists. */
  onGeneratedKey?: (key: GeneratedKey) => void;
  /** Called with each project key pair created on first start: the only time its secret exists. */
  onCreatedApiKey?: (key: CreatedApiKey) => void;
  /** Receives prompt-version changes from the admin listener (tests pass a recorder). */
  promptEvents?: PromptVersionEvents;
  /** Called with the dashboard owner created on a start with no user, and the dashboard's URL: the only time its password exists. */
  onFirstOwner?: (owner: FirstOwner, dashboardUrl: string) => void;
}
