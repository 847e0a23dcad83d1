// The operator commands that change the store (`svc migrate`, `svc keys create`, `svc agents add`, `svc automations`,
// `svc users`), run against an open database: by the CLI itself, or by the running service on behalf of a CLI
// (control socket).
import { addProjectAgent } from '../../observability/agents/agent-changes.ts';
import { addApiKey } from '../../observability/api-keys/add-api-key.ts';
import { migrate } from '../../platform/store/migrate.ts';
import { AgentExistsError, type Agent } from '../../platform/store/repos/agents.ts';
import type { ApiKeyKind, CreatedApiKey } from '../../platform/store/repos/api-keys.ts';
import { checkAutomationRequest, runAutomationCommand, type AutomationRequest } from './automation-commands.ts';
import { CLI_ACTOR, CommandError, requireProject, type CommandContext } from './command-context.ts';
import { checkUserRequest, runUserCommand, type UserRequest } from './user-commands.ts';

export interface KeysCreateArgs {
  project: string;
  kind: ApiKeyKind;
  note?: string;
}

export interface AgentsAddArgs {
  project: string;
  name: string;
  version?: string;
  framework?: string;
  model?: string;
}

export type ControlRequest =
  | { command: 'migrate' }
  | { command: 'keys.create'; args: KeysCreateArgs }
  | { command: 'agents.add'; args: AgentsAddArgs }
  | AutomationRequest
  | UserRequest;

export interface MigrateResult {
  applied: string[];
}

export type ControlResponse<T = unknown> = { ok: true; result: T } | { ok: false; error: string; exitCode: number };

export async function createKey(ctx: CommandContext, args: KeysCreateArgs): Promise<CreatedApiKey> {
  const key = await ctx.db.transaction(async (tx) => {
    const project = await requireProject(tx, args.project);
    return addApiKey(
      tx,
      {
        kind: args.kind,
        organizationId: project.organizationId,
        projectId: args.kind === 'project' ? project.id : undefined,
        note: args.note,
        now: ctx.now(),
      },
      CLI_ACTOR,
    );
  });
  await ctx.changed?.();
  return key;
}

export async function addAgentCommand(ctx: CommandContext, args: AgentsAddArgs): Promise<Agent> {
  const project = await requireProject(ctx.db, args.project);
  const { name, version, framework, model } = args;
  const agent = await addProjectAgent(ctx.db, project, { name, version, framework, model }, CLI_ACTOR).catch(
    (err: unknown) => {
      throw err instanceof AgentExistsError ? new CommandError(err.message) : err;
    },
  );
  await ctx.changed?.();
  return agent;
}

export async function migrateCommand(ctx: CommandContext): Promise<MigrateResult> {
  return { applied: await migrate(ctx.db) };
}

const isText = (v: unknown): v is string => typeof v === 'string';
const optionalText = (v: unknown) => v === undefined || isText(v);

/** Checks a request that arrived over the socket: it is input from another process. */
function checkRequest(value: unknown): ControlRequest {
  const r = value as { command?: unknown; args?: Record<string, unknown> } | null;
  if (r && r.command === 'migrate') return { command: 'migrate' };
  const a = r?.args;
  if (
    r?.command === 'keys.create' &&
    a &&
    isText(a.project) &&
    (a.kind === 'project' || a.kind === 'organization') &&
    optionalText(a.note)
  ) {
    return { command: 'keys.create', args: { project: a.project, kind: a.kind, note: a.note as string | undefined } };
  }
  if (
    r?.command === 'agents.add' &&
    a &&
    isText(a.project) &&
    isText(a.name) &&
    optionalText(a.version) &&
    optionalText(a.framework) &&
    optionalText(a.model)
  ) {
    const { project, name, version, framework, model } = a as unknown as AgentsAddArgs;
    return { command: 'agents.add', args: { project, name, version, framework, model } };
  }
  const automation = checkAutomationRequest(value);
  if (automation) return automation;
  const user = checkUserRequest(value);
  if (user) return user;
  throw new CommandError(`unknown or malformed control request: ${JSON.stringify(value)?.slice(0, 200)}`, 2);
}

/** Runs one request; every failure becomes a response, so a caller always gets an answer. */
export async function runCommand(ctx: CommandContext, request: unknown): Promise<ControlResponse> {
  try {
    const r = checkRequest(request);
    switch (r.command) {
      case 'migrate':
        return { ok: true, result: await migrateCommand(ctx) };
      case 'keys.create':
        return { ok: true, result: await createKey(ctx, r.args) };
      case 'agents.add':
        return { ok: true, result: await addAgentCommand(ctx, r.args) };
      case 'users.add':
      case 'users.list':
        return { ok: true, result: await runUserCommand(ctx, r) };
      default:
        return { ok: true, result: await runAutomationCommand(ctx, r) };
    }
  } catch (err) {
    if (err instanceof CommandError) return { ok: false, error: err.message, exitCode: err.exitCode };
    return { ok: false, error: describeError(err), exitCode: 1 };
  }
}

/** A driver error as one line; pg reports a refused connection to several addresses as an AggregateError without a message. */
export function describeError(err: unknown): string {
  if (err instanceof AggregateError && !err.message) return err.errors.map((e) => describeError(e)).join('; ');
  if (err instanceof Error) return err.message || String((err as NodeJS.ErrnoException).code ?? err.name);
  return String(err);
}
