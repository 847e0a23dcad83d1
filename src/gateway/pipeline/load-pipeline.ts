// Resolves plugin modules named in gateway.yaml, validates their config, and sets them up as one pipeline.
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, yamlPath, type ConfigIssue } from '../../platform/config/config-error.ts';
import { ajvIssues, createConfigAjv } from '../../platform/config/schema-validator.ts';
import type { InspectedConfig, LoadedConfig } from '../../platform/config/load-config.ts';
import { closestName } from '../../platform/config/closest-name.ts';
import { PLUGIN_API_VERSION, type PluginHooks } from '../../plugin-api/contract.ts';
import type { Services } from '../../plugin-api/services.ts';
import type { PluginDefinition } from '../../plugin-api/define-plugin.ts';

/** The plugins svc ships, by the name gateway.yaml gives them (plugins/index.ts lists them); each loads on first use. */
export type BuiltinPlugins = Readonly<Record<string, () => Promise<{ default: PluginDefinition<never> }>>>;

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

/** The plugins with an event hook (onEvent or observeEvent), in the order each chunk meets them. */
export interface EventHooks {
  plugins: LoadedPlugin[];
  /** One of them has onEvent, so chunks may change: each is serialised again instead of passing through. */
  edit: boolean;
}

/** The plugins that took part in a request, in reverse list order, split by the hooks they have. */
export interface Stage {
  onResponse: LoadedPlugin[];
  events: EventHooks;
  onResponseEnd: LoadedPlugin[];
  onLog: LoadedPlugin[];
  /** The most streamed answer text a plugin of the stage reads from ctx.streamed: what the stream aggregate keeps. */
  streamedTextChars: number;
}

export interface RequestHook {
  plugin: LoadedPlugin;
  /** The stage of a request that ends in this plugin's onRequest: it and every request plugin before it took part. */
  stage: number;
}

export interface Pipeline {
  /** Plugins before the terminal one: their onRequest runs in list order. */
  request: LoadedPlugin[];
  /** The request plugins that have an onRequestHead hook, in list order: the listener runs them before the body. */
  onRequestHead: LoadedPlugin[];
  /** The request plugins that have an onRequest hook, in list order. */
  onRequest: RequestHook[];
  terminal: LoadedPlugin;
  /** Plugins after the terminal one: response and log phases only. */
  after: LoadedPlugin[];
  /**
   * Built once per pipeline: `stages[n]` when the first n request plugins took part and the terminal plugin did not
   * run, `stages[request.length + 1]` when it did. Plugins after the terminal one take part in every stage.
   */
  stages: Stage[];
  close(): Promise<void>;
}

/** Every hook a plugin's setup may return (Fastify's `supportedHooks`): anything else is refused at load. */
const SUPPORTED_HOOKS: Record<Exclude<keyof PluginHooks, 'streamedTextChars'>, true> = {
  onRequestHead: true,
  onRequest: true,
  handle: true,
  onResponse: true,
  onEvent: true,
  observeEvent: true,
  onResponseEnd: true,
  onLog: true,
  close: true,
};
const DEFINITION_FIELDS: Record<keyof PluginDefinition, true> = {
  apiVersion: true,
  name: true,
  configSchema: true,
  setup: true,
};
const list = (names: object) => Object.keys(names).join(', ');

const ajv = createConfigAjv();

function isLocalPath(use: string): boolean {
  return use.startsWith('./') || use.startsWith('../') || isAbsolute(use);
}

async function importDefinition(use: string, baseDir: string, builtins: BuiltinPlugins): Promise<unknown> {
  const builtin = builtins[use];
  if (builtin) return (await builtin()).default;
  const specifier = isLocalPath(use) ? pathToFileURL(resolve(baseDir, use)).href : use;
  const mod = (await import(specifier)) as { default?: unknown; plugin?: unknown };
  return mod.default ?? mod.plugin;
}

/**
 * Why a plugin module could not be imported: a name that is neither built in nor installed lists the built-in names
 * (and the one it most likely meant); otherwise the import's own message, without where svc imported it from.
 */
function importProblem(use: string, err: unknown, builtins: BuiltinPlugins): string {
  const message = (err as Error).message.replace(/ imported from \S+$/, '');
  const notFound = (err as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND';
  if (!notFound || isLocalPath(use) || !message.includes(`'${use}'`)) return `cannot load plugin '${use}': ${message}`;
  const near = closestName(use, Object.keys(builtins));
  return (
    `unknown plugin '${use}'${near ? ` (did you mean '${near}'?)` : ''}: the built-in plugins are ` +
    `${list(builtins)}; a plugin of your own is a path (./plugins/my-plugin.mjs) or an installed package`
  );
}

/** The plugins that load and whose config is valid, and every problem with the others, each with its YAML path. */
async function checkPlugins(
  loaded: LoadedConfig,
  builtins: BuiltinPlugins,
): Promise<{ resolved: ResolvedPlugin[]; issues: ConfigIssue[] }> {
  const issues: ConfigIssue[] = [];
  const resolved: ResolvedPlugin[] = [];
  const issue = (segments: (string | number)[], message: string) =>
    issues.push({ path: yamlPath(segments), message, line: loaded.lineOf(segments) });
  // On a document the schema refused, entries without a plugin name are left to the schema's issues.
  const entries = Array.isArray(loaded.config.plugins) ? loaded.config.plugins.entries() : [];
  for (const [index, entry] of entries) {
    if (typeof entry?.use !== 'string') continue;
    let definition: unknown;
    try {
      definition = await importDefinition(entry.use, loaded.baseDir, builtins);
    } catch (err) {
      issue(['plugins', index, 'use'], importProblem(entry.use, err, builtins));
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
    const unknownField = Object.keys(def).find((k) => !Object.hasOwn(DEFINITION_FIELDS, k));
    if (unknownField !== undefined) {
      issue(
        ['plugins', index, 'use'],
        `plugin '${entry.use}' has an unknown field '${unknownField}' in its definition (known: ${list(DEFINITION_FIELDS)}); hooks are returned by setup`,
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
  return { resolved, issues };
}

/** Loads every plugin module and validates its config; a ConfigError with every problem at once. */
export async function resolvePlugins(loaded: LoadedConfig, builtins: BuiltinPlugins): Promise<ResolvedPlugin[]> {
  const { resolved, issues } = await checkPlugins(loaded, builtins);
  if (issues.length > 0) throw new ConfigError(issues, loaded.path);
  return resolved;
}

/** A configuration whose schema, references and plugins all passed, with its plugins resolved. */
export interface CheckedConfig {
  loaded: LoadedConfig;
  plugins: ResolvedPlugin[];
}

/** Checks the plugins of an inspected configuration too: every schema, reference and plugin problem in one error. */
export async function checkConfig(
  { loaded, issues }: InspectedConfig,
  builtins: BuiltinPlugins,
): Promise<CheckedConfig> {
  const plugins = await checkPlugins(loaded, builtins);
  const all = [...issues, ...plugins.issues];
  if (all.length > 0) throw new ConfigError(all, loaded.path);
  return { loaded, plugins: plugins.resolved };
}

/** Calls each plugin's setup and checks the shape of the pipeline: exactly one terminal plugin. */
export async function setupPipeline(
  loaded: LoadedConfig,
  resolved: ResolvedPlugin[],
  services: Services,
): Promise<Pipeline> {
  const plugins: LoadedPlugin[] = [];
  const issues: ConfigIssue[] = [];
  const issue = (index: number, message: string) => {
    const segments = ['plugins', index];
    issues.push({ path: yamlPath(segments), message, line: loaded.lineOf(segments) });
  };
  for (const r of resolved) {
    let hooks: PluginHooks | void;
    try {
      hooks = await r.definition.setup(r.config as never, services);
    } catch (err) {
      issue(r.index, `setup of '${r.use}' failed: ${(err as Error).message}`);
      continue;
    }
    const loadedPlugin = { index: r.index, name: r.definition.name ?? r.use, hooks: hooks ?? {} };
    // Kept even when refused, so its close() still runs.
    plugins.push(loadedPlugin);
    const problem = hookProblem(loadedPlugin.hooks);
    if (problem !== undefined) issue(r.index, `setup of '${r.use}' ${problem}`);
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
    const hook = (['onRequest', 'onRequestHead'] as const).find((h) => p.hooks[h]);
    if (hook) issue(p.index, `'${p.name}' has an ${hook} hook, so it must be listed before the terminal plugin`);
  }
  if (issues.length > 0) {
    await closeAll(plugins);
    throw new ConfigError(issues, loaded.path);
  }
  const request = plugins.filter((p) => p.index < terminal.index);
  return {
    request,
    onRequestHead: request.filter((p) => p.hooks.onRequestHead),
    onRequest: request.flatMap((plugin, i) => (plugin.hooks.onRequest ? [{ plugin, stage: i + 1 }] : [])),
    terminal,
    after,
    stages: stagesOf(request, terminal, after),
    close: () => closeAll(plugins),
  };
}

async function closeAll(plugins: readonly LoadedPlugin[]): Promise<void> {
  await Promise.allSettled(plugins.map((p) => p.hooks.close?.()));
}

/**
 * Why the hooks a setup returned cannot be used: not an object, a function under a name that is no hook (a typo such
 * as `onRequst`, which would otherwise never run), or a hook that is not a function.
 */
function hookProblem(hooks: unknown): string | undefined {
  if (typeof hooks !== 'object' || hooks === null) return 'must return an object of hooks';
  for (const [name, value] of Object.entries(hooks)) {
    const known = Object.hasOwn(SUPPORTED_HOOKS, name);
    if (!known && typeof value === 'function')
      return `returned an unknown hook '${name}' (the hooks are ${list(SUPPORTED_HOOKS)})`;
    if (known && value !== undefined && typeof value !== 'function')
      return `returned a hook '${name}' that is not a function`;
  }
  const { onEvent, observeEvent, streamedTextChars: chars } = hooks as PluginHooks;
  if (chars !== undefined && !(Number.isSafeInteger(chars) && chars >= 0))
    return `returned streamedTextChars ${String(chars)}: it must be a whole number of characters, 0 or more`;
  if (onEvent && observeEvent)
    return 'returned both onEvent and observeEvent (a plugin either edits stream chunks, onEvent, or only reads them, observeEvent)';
  return undefined;
}

function stagesOf(request: LoadedPlugin[], terminal: LoadedPlugin, after: LoadedPlugin[]): Stage[] {
  const stage = (took: LoadedPlugin[]): Stage => {
    const reversed = [...took, ...after].reverse();
    return {
      onResponse: reversed.filter((p) => p.hooks.onResponse),
      events: {
        plugins: reversed.filter((p) => p.hooks.onEvent || p.hooks.observeEvent),
        edit: reversed.some((p) => p.hooks.onEvent),
      },
      onResponseEnd: reversed.filter((p) => p.hooks.onResponseEnd),
      streamedTextChars: Math.max(0, ...reversed.map((p) => p.hooks.streamedTextChars ?? 0)),
      onLog: reversed.filter((p) => p.hooks.onLog),
    };
  };
  const stages = request.map((_, n) => stage(request.slice(0, n)));
  stages.push(stage(request), stage([...request, terminal]));
  return stages;
}
