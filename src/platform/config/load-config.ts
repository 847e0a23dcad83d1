import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument, visit, type Document, type Scalar, type YAMLError } from 'yaml';
import gatewaySchema from '../../../schemas/gateway.schema.json' with { type: 'json' };
import { ConfigError, yamlPath, type ConfigIssue } from './config-error.ts';
import { hasReference, interpolate, type Env } from './interpolate.ts';
import { ajvIssues, createConfigAjv } from './schema-validator.ts';
import { parseNetworks } from '../networks.ts';
import type { OrgUnitConfig, GatewayConfig } from './types.ts';
import { unitChain } from './unit-chain.ts';
import { decodePointer } from '../validation/json-pointer.ts';
import type { ErrorObject } from 'ajv';

/** A validated configuration plus what is needed to report later problems by YAML path and line. */
export interface LoadedConfig {
  config: GatewayConfig;
  /** Absolute path of the YAML file, or undefined for in-memory text. */
  path?: string;
  /** Directory that relative paths in the config (custom plugins, data_dir) resolve against. */
  baseDir: string;
  /** Problems that do not stop the config going live (for example a deployment without its API key). */
  warnings: string[];
  lineOf(segments: readonly (string | number)[]): number | undefined;
}

const ajv = createConfigAjv();
const validateGateway = ajv.compile<GatewayConfig>(gatewaySchema);

/** Resolves `${VAR}` references inside scalar values; returns the scalars that used unset variables, with their names. */
function interpolateDocument(doc: Document, env: Env): Map<Scalar, string[]> {
  const unsetIn = new Map<Scalar, string[]>();
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string' || !hasReference(node.value)) return;
      // Values stay strings; schema validation coerces them where a number or boolean is expected.
      const unset: string[] = [];
      node.value = interpolate(node.value, env, unset);
      if (unset.length > 0) unsetIn.set(node, unset);
    },
  });
  return unsetIn;
}

/** `${VAR}` outside quotes, e.g. `port: ${PORT}` inside `{ }`, where `{` opens a flow map. */
const UNQUOTED_REFERENCE = /\$\{[^}\s]*\}?/;

/**
 * The first YAML syntax error, with its column and, for an unquoted `${...}` on its line, how to fix it. Only the
 * first: the parser's later errors follow from it (one unquoted reference in a flow map makes hundreds).
 */
function syntaxIssue(error: YAMLError, text: string, lineCounter: LineCounter): ConfigIssue {
  const message = error.message.split('\n')[0];
  if (error.pos[0] < 0) return { path: '', message };
  const { line, col } = lineCounter.linePos(error.pos[0]);
  const source = text.split(/\r?\n/)[line - 1] ?? '';
  const reference = UNQUOTED_REFERENCE.exec(
    source.replace(/"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'/g, (q) => ' '.repeat(q.length)),
  )?.[0];
  const hint = reference
    ? `. Hint: inside { } or [ ], quote values that use \${...} (an unquoted { starts a nested map): "${reference}"`
    : '';
  return { path: '', message: `column ${col}: ${message}${hint}`, line };
}

/** A parsed configuration and every schema and reference problem found in it (none: it may go live). */
export interface InspectedConfig {
  loaded: LoadedConfig;
  issues: ConfigIssue[];
}

/**
 * Parses and checks a configuration, collecting every problem rather than stopping at the first kind; only a YAML
 * syntax error, which leaves nothing to check, throws.
 */
export function inspectConfig(text: string, options: { env: Env; path?: string; baseDir?: string }): InspectedConfig {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const source = options.path;
  if (doc.errors.length > 0) throw new ConfigError([syntaxIssue(doc.errors[0], text, lineCounter)], source);
  const unsetIn = interpolateDocument(doc, options.env);
  const lineOf = (segments: readonly (string | number)[]): number | undefined => {
    for (let n = segments.length; n >= 0; n--) {
      const node = doc.getIn(segments.slice(0, n), true);
      if (node && typeof node === 'object' && 'range' in node && Array.isArray(node.range)) {
        return lineCounter.linePos(node.range[0] as number).line;
      }
    }
    return undefined;
  };
  const issueAt = (segments: (string | number)[], message: string): ConfigIssue => {
    const unset = unsetIn.get(doc.getIn(segments, true) as Scalar);
    const why = unset ? ` (${unset.join(', ')} ${unset.length === 1 ? 'is' : 'are'} not set in the environment)` : '';
    return { path: yamlPath(segments), message: `${message}${why}`, line: lineOf(segments) };
  };
  const data: unknown = doc.toJS() ?? {};
  const schemaValid = validateGateway(data);
  const issues = schemaValid
    ? []
    : ajvIssues(validateGateway.errors).map(({ segments, message }) => issueAt(segments, message));
  const config = data as GatewayConfig;
  const warnings: string[] = [];
  const pending: PendingIssue[] = [];
  try {
    crossCheck(config, warnings, pending);
  } catch (err) {
    // A document the schema refused may not have the shape the cross checks walk: what they found until then is
    // kept, and the schema's issues say what is wrong with the rest.
    if (schemaValid) throw err;
  }
  const refused = entriesMissingFields(validateGateway.errors);
  for (const i of pending) if (!refused.has(entryOf(i.segments))) issues.push(issueAt(i.segments, i.message));
  const baseDir = options.baseDir ?? (options.path ? dirname(options.path) : process.cwd());
  return { loaded: { config, path: options.path, baseDir, warnings, lineOf }, issues };
}

/** `keys/3` for `['keys', 3, 'project']`: the list entry a problem is in. */
const entryOf = (segments: readonly (string | number)[]) => segments.slice(0, 2).join('/');

/**
 * The list entries the schema found a field missing from, or of the wrong type: the cross checks would only repeat
 * that about them (`unknown project 'undefined'`), so their findings there are left out.
 */
function entriesMissingFields(errors: readonly ErrorObject[] | null | undefined): Set<string> {
  return new Set(
    (errors ?? [])
      .filter((e) => e.keyword === 'required' || e.keyword === 'type')
      .map((e) => entryOf(decodePointer(e.instancePath))),
  );
}

/** The inspected configuration when it may go live; a ConfigError with every schema and reference problem otherwise. */
function liveConfig({ loaded, issues }: InspectedConfig): LoadedConfig {
  if (issues.length > 0) throw new ConfigError(issues, loaded.path);
  return loaded;
}

/** A configuration that may go live; a ConfigError with every schema and reference problem otherwise. */
export function parseConfig(text: string, options: { env: Env; path?: string; baseDir?: string }): LoadedConfig {
  return liveConfig(inspectConfig(text, options));
}

/** `inspectConfig` of a file; an unreadable file is a ConfigError. */
export async function inspectConfigFile(path: string, env: Env): Promise<InspectedConfig> {
  const absolute = resolve(path);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: '', message: `cannot read ${absolute}: ${(err as Error).message}` }], absolute);
  }
  return inspectConfig(text, { env, path: absolute });
}

export async function loadConfigFile(path: string, env: Env): Promise<LoadedConfig> {
  return liveConfig(await inspectConfigFile(path, env));
}

type PendingIssue = Omit<ConfigIssue, 'path'> & { segments: (string | number)[] };

/** Rules JSON Schema cannot express: uniqueness and references between sections. */
function crossCheck(config: GatewayConfig, warnings: string[], issues: PendingIssue[]): void {
  const projectIds = checkProjects(config, issues);
  const groups = checkModelGroups(config, issues, warnings);
  checkKeys(config, projectIds, groups, issues);
  checkAgents(config, projectIds, issues);
  const units = checkOrgUnits(config, projectIds, issues);
  // A chain that cannot be built is a warning, not an error: the keys it concerns are refused with
  // 503 budget_config_invalid (docs/api.md, Errors) while every other key keeps working.
  for (const k of config.keys) {
    if (k.unit === undefined) continue;
    const chain = unitChain(units, k.unit, k.project);
    if (!chain.ok) warnings.push(`key '${k.alias}': ${chain.reason}; its requests get 503 budget_config_invalid`);
  }
}

/** The project ids, each once. */
function checkProjects(config: GatewayConfig, issues: PendingIssue[]): Set<string> {
  const projectIds = new Set<string>();
  config.projects.forEach((p, i) => {
    if (projectIds.has(p.id))
      issues.push({ segments: ['projects', i, 'id'], message: `duplicate project id '${p.id}'` });
    projectIds.add(p.id);
  });
  return projectIds;
}

/** Group names and deployment ids, each once, and fallbacks naming another group; returns the group names. */
function checkModelGroups(config: GatewayConfig, issues: PendingIssue[], warnings: string[]): Set<string> {
  const groups = new Set<string>();
  const deploymentIds = new Set<string>();
  config.model_groups.forEach((g, gi) => {
    if (groups.has(g.name))
      issues.push({ segments: ['model_groups', gi, 'name'], message: `duplicate model group '${g.name}'` });
    groups.add(g.name);
    g.deployments.forEach((d, di) => {
      // Deployment ids key bench state and attempt records, so they are unique across groups.
      if (deploymentIds.has(d.id)) {
        issues.push({
          segments: ['model_groups', gi, 'deployments', di, 'id'],
          message: `duplicate deployment id '${d.id}'`,
        });
      }
      deploymentIds.add(d.id);
      if ((d.provider === 'openai' || d.provider === 'azure') && !d.api_key) {
        warnings.push(`deployment '${d.id}' has no api_key and is out of rotation until one is set`);
      }
    });
  });
  config.model_groups.forEach((g, gi) => {
    if (g.fallback === undefined) return;
    if (g.fallback === g.name)
      issues.push({ segments: ['model_groups', gi, 'fallback'], message: 'a group cannot fall back to itself' });
    else if (!groups.has(g.fallback))
      issues.push({ segments: ['model_groups', gi, 'fallback'], message: `unknown model group '${g.fallback}'` });
  });
  return groups;
}

function checkKeys(config: GatewayConfig, projectIds: Set<string>, groups: Set<string>, issues: PendingIssue[]): void {
  const aliases = new Set<string>();
  config.keys.forEach((k, ki) => {
    if (aliases.has(k.alias))
      issues.push({ segments: ['keys', ki, 'alias'], message: `duplicate key alias '${k.alias}'` });
    aliases.add(k.alias);
    if (!projectIds.has(k.project))
      issues.push({ segments: ['keys', ki, 'project'], message: `unknown project '${k.project}'` });
    k.model_groups.forEach((name, i) => {
      if (!groups.has(name))
        issues.push({ segments: ['keys', ki, 'model_groups', i], message: `unknown model group '${name}'` });
    });
    if (k.key && k.key_sha256)
      issues.push({ segments: ['keys', ki], message: 'set either key or key_sha256, not both' });
    if (k.key !== undefined && k.key !== '' && k.key.length < 16) {
      issues.push({ segments: ['keys', ki, 'key'], message: 'must be at least 16 characters' });
    }
    k.allowed_networks?.forEach((cidr, i) => {
      try {
        parseNetworks([cidr]);
      } catch (err) {
        issues.push({ segments: ['keys', ki, 'allowed_networks', i], message: (err as Error).message });
      }
    });
  });
}

function checkAgents(config: GatewayConfig, projectIds: Set<string>, issues: PendingIssue[]): void {
  const agentIds = new Set<string>();
  const agentNames = new Set<string>();
  config.agents.forEach((a, ai) => {
    if (agentIds.has(a.id)) issues.push({ segments: ['agents', ai, 'id'], message: `duplicate agent id '${a.id}'` });
    agentIds.add(a.id);
    const name = `${a.project}\u0000${a.name}\u0000${a.version}`;
    if (agentNames.has(name))
      issues.push({
        segments: ['agents', ai, 'name'],
        message: `duplicate agent '${a.name}' version '${a.version}' in project '${a.project}'`,
      });
    agentNames.add(name);
    if (!projectIds.has(a.project))
      issues.push({ segments: ['agents', ai, 'project'], message: `unknown project '${a.project}'` });
  });
}

/** Unit ids, each once, in known projects; returns the units by id. */
function checkOrgUnits(
  config: GatewayConfig,
  projectIds: Set<string>,
  issues: PendingIssue[],
): Map<string, OrgUnitConfig> {
  const units = new Map<string, OrgUnitConfig>();
  config.org_units.forEach((u, ui) => {
    if (units.has(u.id))
      issues.push({ segments: ['org_units', ui, 'id'], message: `duplicate organization unit '${u.id}'` });
    units.set(u.id, u);
    if (!projectIds.has(u.project))
      issues.push({ segments: ['org_units', ui, 'project'], message: `unknown project '${u.project}'` });
  });
  return units;
}
