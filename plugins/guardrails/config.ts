// The guardrails config after schema.json has validated it and applied its defaults.
import type { ModerationServiceConfig } from './detectors/moderation-service.ts';
import type { PresidioServiceConfig } from './detectors/presidio-service.ts';
import type { LocalDetectorSpec } from './detectors/types.ts';

export type DetectorConfig = LocalDetectorSpec | { type: 'service'; service: string };

export interface PolicyConfig {
  name: string;
  projects?: string[];
  model_groups?: string[];
  detectors: DetectorConfig[];
  mode: 'block' | 'flag';
  blocked_message: string;
  fail_closed: boolean;
  timeout_ms: number;
  check: { prompt: boolean; response: boolean };
}

export interface GuardrailsConfig {
  services: Record<string, ModerationServiceConfig | PresidioServiceConfig>;
  policies: PolicyConfig[];
  stream_max_chars: number;
  worker_threshold_chars: number;
}
