import type { DeploymentConfig, ProviderName } from '../../platform/config/types.ts';
import type { Clock } from '../../platform/clock.ts';
import { anthropicProvider } from './anthropic/index.ts';
import { azureProvider } from './azure/index.ts';
import { bedrockProvider } from './bedrock/index.ts';
import { mockProvider } from './mock/index.ts';
import { openaiProvider } from './openai/index.ts';
import type { ProviderServices } from './types.ts';
import { vertexProvider } from './vertex/index.ts';
import type { ProviderAdapter } from '../../plugin-api/services.ts';
import type { ProviderRegistry } from '../../plugin-api/services.ts';

export function createProviderRegistry(services: ProviderServices & { clock: Clock }): ProviderRegistry {
  const adapters: Record<ProviderName, ProviderAdapter> = {
    mock: mockProvider(services.clock),
    openai: openaiProvider(services),
    azure: azureProvider(services),
    bedrock: bedrockProvider(services),
    anthropic: anthropicProvider(services),
    vertex: vertexProvider(services),
  };
  return { forDeployment: (d) => adapters[d.provider] };
}
