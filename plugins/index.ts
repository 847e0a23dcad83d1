// The built-in plugins by the name gateway.yaml gives them (`use: router`). Each module loads when a configuration
// first names it; the runtime hands this list to the pipeline loader, so the gateway core imports no plugin.
import type { PluginDefinition } from '../src/plugin-api/index.ts';

export const BUILTIN_PLUGINS: Readonly<Record<string, () => Promise<{ default: PluginDefinition<never> }>>> = {
  auth: () => import('./auth/index.ts'),
  guardrails: () => import('./guardrails/index.ts'),
  router: () => import('./router/index.ts'),
  'rate-limit': () => import('./rate-limit/index.ts'),
  budget: () => import('./budget/index.ts'),
  cache: () => import('./cache/index.ts'),
  tracing: () => import('./tracing/index.ts'),
};
