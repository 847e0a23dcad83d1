// `svc migrate`, `svc keys create`, `svc agents add`: flags in, a store command run, the result printed for
// people or (--json) for scripts. Returns the exit code; flag mistakes throw UsageError (exit 2, usage printed).
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { ConfigError, formatIssue } from '../../platform/config/config-error.ts';
import { loadConfigFile } from '../../platform/config/load-config.ts';
import type { Agent } from '../../platform/store/repos/agents.ts';
import type { CreatedApiKey } from '../../platform/store/repos/api-keys.ts';
import type { ControlRequest, MigrateResult } from './commands.ts';
import { runStoreCommand } from './run-store-command.ts';

export class UsageError extends Error {}

type Values = Record<string, string | boolean | undefined>;

const COMMON: ParseArgsOptionsConfig = {
  config: { type: 'string', short: 'c', default: 'gateway.yaml' },
  json: { type: 'boolean', default: false },
};

/** The flags after `svc <command> [subcommand]`; `subcommand` is the one positional allowed (and required). */
export function parse(args: string[], options: ParseArgsOptionsConfig, subcommand?: string): Values {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const [first, ...extra] = parsed.positionals;
  if (subcommand !== undefined && first === undefined) throw new UsageError(`missing subcommand '${subcommand}'`);
  const unexpected = subcommand === undefined ? first : first !== subcommand ? first : extra[0];
  if (unexpected !== undefined) throw new UsageError(`unexpected argument '${unexpected}'`);
  return parsed.values as Values; // no option is `multiple`
}

/** The subcommand: the first positional once the values of these flags (and the common ones) are skipped. */
export function subcommandOf(args: string[], options: ParseArgsOptionsConfig): string | undefined {
  return parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: true, strict: false }).positionals[0];
}

export function required(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function optional(values: Values, name: string): string | undefined {
  const v = values[name];
  if (v === '') throw new UsageError(`--${name} must not be empty`);
  return v as string | undefined;
}

export async function storeCommand(command: 'migrate' | 'keys' | 'agents', args: string[]): Promise<number> {
  let values: Values;
  let request: ControlRequest;
  if (command === 'migrate') {
    values = parse(args, {});
    request = { command: 'migrate' };
  } else if (command === 'keys') {
    values = parse(
      args,
      { project: { type: 'string' }, kind: { type: 'string', default: 'project' }, note: { type: 'string' } },
      'create',
    );
    const kind = values.kind;
    if (kind !== 'project' && kind !== 'organization')
      throw new UsageError(`--kind must be 'project' or 'organization', not '${String(kind)}'`);
    request = {
      command: 'keys.create',
      args: { project: required(values, 'project'), kind, note: optional(values, 'note') },
    };
  } else {
    values = parse(
      args,
      {
        project: { type: 'string' },
        name: { type: 'string' },
        version: { type: 'string' },
        framework: { type: 'string' },
        model: { type: 'string' },
      },
      'add',
    );
    request = {
      command: 'agents.add',
      args: {
        project: required(values, 'project'),
        name: required(values, 'name'),
        version: optional(values, 'version'),
        framework: optional(values, 'framework'),
        model: optional(values, 'model'),
      },
    };
  }

  const response = await runRequest(values.config as string, request);
  if (typeof response === 'number') return response;
  const json = values.json === true;
  if (request.command === 'migrate') printMigrate(response as MigrateResult, json);
  else if (request.command === 'keys.create') printKey(response as CreatedApiKey, json);
  else printAgent(response as Agent, json);
  return 0;
}

/** Loads the config and runs the request; the result, or the exit code after the failure was printed. */
export async function runRequest(configPath: string, request: ControlRequest): Promise<unknown> {
  let loaded;
  try {
    loaded = await loadConfigFile(configPath, process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`svc: ${configPath} is invalid:`);
    for (const issue of err.issues) console.error(`  ${formatIssue(issue)}`);
    return 1;
  }
  const response = await runStoreCommand(loaded, request, (m) => console.error(`svc: warning: ${m}`));
  if (!response.ok) {
    console.error(`svc: ${response.error}`);
    return response.exitCode;
  }
  return response.result;
}

function printMigrate(r: MigrateResult, json: boolean): void {
  if (json) console.log(JSON.stringify({ applied: r.applied }));
  else if (r.applied.length === 0) console.log('The store is up to date: no migrations to apply.');
  else
    console.log(
      `Applied ${r.applied.length} migration${r.applied.length === 1 ? '' : 's'}:\n${r.applied.map((m) => `  ${m}`).join('\n')}`,
    );
}

function printKey(k: CreatedApiKey, json: boolean): void {
  if (json) {
    const { id, kind, publicKey, secretKey, projectId, organizationId, expiresAt, createdAt } = k;
    console.log(JSON.stringify({ id, kind, publicKey, secretKey, projectId, organizationId, expiresAt, createdAt }));
    return;
  }
  const owner = k.kind === 'project' ? `project '${k.projectId}'` : `organization '${k.organizationId}'`;
  console.log(
    [
      `Created ${k.kind === 'project' ? 'a project' : 'an organization'} key for ${owner}.`,
      `  public key:   ${k.publicKey}`,
      `  secret key:   ${k.secretKey}`,
      `  kind:         ${k.kind}`,
      ...(k.projectId ? [`  project:      ${k.projectId}`] : []),
      `  organization: ${k.organizationId}`,
      `  expires at:   ${k.expiresAt}`,
      'The secret key is shown once and cannot be shown again: keep it now.',
    ].join('\n'),
  );
}

function printAgent(a: Agent, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(a));
    return;
  }
  const show = (v: string) => (v === '' ? '-' : v);
  console.log(
    [
      `Added agent '${a.name}' to project '${a.projectId}'.`,
      `  id:         ${a.id}`,
      `  name:       ${a.name}`,
      `  version:    ${show(a.version)}`,
      `  framework:  ${show(a.framework)}`,
      `  model:      ${show(a.model)}`,
      `  status:     ${a.status}`,
      `  created at: ${a.createdAt}`,
    ].join('\n'),
  );
}
