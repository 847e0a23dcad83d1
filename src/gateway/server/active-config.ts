import type { LoadedConfig } from '../../platform/config/load-config.ts';
import type { Pipeline } from '../pipeline/load-pipeline.ts';
import type { Services } from '../../plugin-api/services.ts';

/** One configuration as it serves: built whole beside the previous one, then swapped in atomically. */
export interface ActiveConfig {
  readonly loaded: LoadedConfig;
  readonly pipeline: Pipeline;
  readonly services: Services;
  /** Requests started on this configuration and not finished. */
  inFlight: number;
  /** Called once when a replaced configuration has no requests left. */
  onDrained?: () => void;
}
