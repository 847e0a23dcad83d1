// Resolves plugin modules named in gateway.yaml, validates their config, and sets them up as one pipeline.
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, yamlPath, type ConfigIssue } from '../config/config-error.ts';
import { ajvIssues, createConfigAjv } from '../config/schema-validator.ts';
import type { LoadedConfig } from '../config/load-config.ts';
import { PLUGIN_API_VERSION, type PluginDefinition, type PluginHooks, type Services } from './types.ts';

const BUILTIN_PLUGINS: Record<string, () => Promise<{ default: PluginDefinition<never> }>> = {
  auth: () => import('../../plugins/auth/index.ts'),
  guardrails: () => import('../../plugins/guardrails/index.ts'),
  router: () => import('../../plugins/router/index.ts'),
  'rate-limit': () => import('../../plugins/rate-limit/index.ts'),
  budget: () => import('../../plugins/budget/index.ts'),
  cache: () => import('../../plugins/cache/index.ts'),
  tracing: () => import('../../plugins/tracing/index.ts'),
};

export interface ResolvedPlugin {
  index: number;
  use: string;
  definition: PluginDefinition<unknown>;
  config: Record<string, unknown>;
}

export interface LoadedPlugin {
  index: number;
  name: string;
  hooks: PluginHooks;
}

export interface Pipeline {
  /** Plugins before the terminal one: their onRequest runs in list order. */
  request: LoadedPlugin[];
  terminal: LoadedPlugin;
  /** Plugins after the terminal one: response and log phases only. */
  after: LoadedPlugin[];
  close(): Promise<void>;
}

const ajv = createConfigAjv();

function isLocalPath(use: string): boolean {
  return use.startsWith('./') || use.startsWith('../') || isAbsolute(use);
}

async function importDefinition(use: string, baseDir: string): Promise<unknown> {
  const builtin = BUILTIN_PLUGINS[use];
  if (builtin) return (await builtin()).default;
  const specifier = isLocalPath(use) ? pathToFileURL(resolve(baseDir, use)).href : use;
  const mod = (await import(specifier)) as { default?: unknown; plugin?: unknown };
  return mod.default ?? mod.plugin;
}

/** Loads every plugin module and validates its config; reports all problems at once with YAML paths. */
export async function resolvePlugins(loaded: LoadedConfig): Promise<ResolvedPlugin[]> {
  const issues: ConfigIssue[] = [];
  const resolved: ResolvedPlugin[] = [];
  const issue = (segments: (string | number)[], message: string) =>
    issues.push({ path: yamlPath(segments), message, line: loaded.lineOf(segments) });
  for (const [index, entry] of loaded.config.plugins.entries()) {
    let definition: unknown;
    try {
      definition = await importDefinition(entry.use, loaded.baseDir);
    } catch (err) {
      issue(['plugins', index, 'use'], `cannot load plugin '${entry.use}': ${(err as Error).message}`);
      continue;
    }
    const def = definition as Partial<PluginDefinition<unknown>> | undefined;
    if (!def || typeof def !== 'object' || typeof def.setup !== 'function') {
      issue(
        ['plugins', index, 'use'],
        `'${entry.use}' does not export a plugin definition (use definePlugin({ apiVersion, name, setup }))`,
      );
      continue;
    }
    if (def.apiVersion !== PLUGIN_API_VERSION) {
      issue(
        ['plugins', index, 'use'],
        `plugin '${entry.use}' declares apiVersion ${String(def.apiVersion)}; this svc supports apiVersion ${PLUGIN_API_VERSION}`,
      );
      continue;
    }
    const config = structuredClone(entry.config ?? {});
    if (def.configSchema) {
      let validate;
      try {
        validate = ajv.compile(def.configSchema);
      } catch (err) {
        issue(
          ['plugins', index, 'use'],
          `plugin '${entry.use}' has an invalid configSchema: ${(err as Error).message}`,
        );
        continue;
      }
      if (!validate(config)) {
        for (const { segments, message } of ajvIssues(validate.errors, ['plugins', index, 'config']))
          issue(segments, message);
        continue;
      }
    }
    resolved.push({ index, use: entry.use, definition: def as PluginDefinition<unknown>, config });
  }
  if (issues.length > 0) throw new ConfigError(issues, loaded.path);
  return resolved;
}

/** Calls each plugin's setup and checks the shape of the pipeline: exactly one terminal plugin. */
export async function setupPipeline(
  loaded: LoadedConfig,
  resolved: ResolvedPlugin[],
  services: Services,
): Promise<Pipeline> {
  const plugins: LoadedPlugin[] = [];
  const issues: ConfigIssue[] = [];
  for (const r of resolved) {
    try {
      const hooks = await r.definition.setup(r.config as never, services);
      plugins.push({ index: r.index, name: r.definition.name ?? r.use, hooks: hooks ?? {} });
    } catch (err) {
      const segments = ['plugins', r.index];
      issues.push({
        path: yamlPath(segments),
        message: `setup of '${r.use}' failed: ${(err as Error).message}`,
        line: loaded.lineOf(segments),
      });
    }
  }
  const terminals = plugins.filter((p) => typeof p.hooks.handle === 'function');
  if (issues.length === 0 && terminals.length !== 1) {
    issues.push({
      path: 'plugins',
      message: `exactly one terminal plugin (one that handles requests, such as 'router') is required; found ${terminals.length}`,
      line: loaded.lineOf(['plugins']),
    });
  }
  const terminal = terminals[0];
  const after = terminal ? plugins.filter((p) => p.index > terminal.index) : [];
  for (const p of after) {
    if (p.hooks.onRequest) {
      const segments = ['plugins', p.index];
      issues.push({
        path: yamlPath(segments),
        message: `'${p.name}' has an onRequest hook, so it must be listed before the terminal plugin`,
        line: loaded.lineOf(segments),
      });
    }
  }
  if (issues.length > 0) {
    await Promise.allSettled(plugins.map((p) => p.hooks.close?.()));
    throw new ConfigError(issues, loaded.path);
  }
  return {
    request: plugins.filter((p) => p.index < terminal.index),
    terminal,
    after,
    async close() {
      await Promise.allSettled(plugins.map((p) => p.hooks.close?.()));
    },
  };
}
