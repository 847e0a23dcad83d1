import type { DeploymentConfig, ProviderName } from '../config/types.ts';
import type { Clock } from '../pipeline/clock.ts';
import { azureProvider } from './azure/index.ts';
import { mockProvider } from './mock/index.ts';
import { openaiProvider } from './openai/index.ts';
import type { ProviderAdapter, ProviderServices } from './types.ts';

export interface ProviderRegistry {
  forDeployment(deployment: DeploymentConfig): ProviderAdapter;
}

export function createProviderRegistry(services: ProviderServices & { clock: Clock }): ProviderRegistry {
  const adapters: Record<ProviderName, ProviderAdapter> = {
    mock: mockProvider(services.clock),
    openai: openaiProvider(services),
    azure: azureProvider(services),
  };
  return { forDeployment: (d) => adapters[d.provider] };
}
