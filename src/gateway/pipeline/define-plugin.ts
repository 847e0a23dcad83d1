import type { PluginDefinition } from './types.ts';

/** Identity helper that gives custom plugins type checking of their definition. */
export function definePlugin<C = Record<string, unknown>>(definition: PluginDefinition<C>): PluginDefinition<C> {
  return definition;
}
