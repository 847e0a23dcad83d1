import type { Dispatcher } from 'undici';
import type { DeploymentConfig } from '../../platform/config/types.ts';
import type { ChatChunk, JsonObject, Usage } from '../../platform/openai/wire-types.ts';
import type { Logger } from '../../platform/telemetry/logger.ts';
import type { WorkerPool } from '../../platform/workers/pool.ts';

export interface ProviderServices {
  dispatcher: Dispatcher;
  now(): number;
  /** Worker threads for signing and whole-body translation of large bodies (src/runtime/worker-tasks.ts). */
  workers: WorkerPool;
  /** Where gateway.yaml lives: relative credential file paths resolve against it. */
  baseDir: string;
  log: Logger;
}
