// A plugin: its name, the JSON Schema of its config, and the setup that turns config and services into hooks.
import type { PluginHooks } from './contract.ts';
import type { Services } from './services.ts';

export interface PluginDefinition<C = Record<string, unknown>> {
  apiVersion: number;
  name: string;
  /** JSON Schema for `config`; defaults apply before `setup`. */
  configSchema?: object;
  setup(config: C, services: Services): PluginHooks | Promise<PluginHooks>;
}

/** Identity helper that gives custom plugins type checking of their definition. */
export function definePlugin<C = Record<string, unknown>>(definition: PluginDefinition<C>): PluginDefinition<C> {
  return definition;
}
