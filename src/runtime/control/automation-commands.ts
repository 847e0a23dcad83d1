// `svc automations …`: create, list, enable, disable, delete automations and read their delivery attempts, run
// against an open store like the other store commands (here, or in the running service over the control socket).
import {
  addAutomation,
  removeAutomation,
  switchAutomation,
} from '../../observability/automations/automation-changes.ts';
import {
  AUTOMATION_ACTIONS,
  AUTOMATION_TYPES,
  getAutomation,
  listAutomations,
  listDeliveryAttempts,
  type Automation,
  type AutomationAction,
  type AutomationType,
  type CreatedAutomation,
  type DeliveryAttempt,
} from '../../platform/store/repos/automations.ts';
import { getProject } from '../../platform/store/repos/projects.ts';
import {
  AutomationRuleError,
  checkAutomationSpec,
  type AutomationField,
} from '../../observability/webhooks/automation-rules.ts';
import { CLI_ACTOR, CommandError, requireProject, type CommandContext } from './command-context.ts';

export interface AutomationsCreateArgs {
  project: string;
  type: AutomationType;
  url?: string;
  name?: string;
  actions: AutomationAction[];
  headers: Record<string, string>;
  routingKey?: string;
}

export type AutomationRequest =
  | { command: 'automations.create'; args: AutomationsCreateArgs }
  | { command: 'automations.list'; args: { project?: string } }
  | {
      command: 'automations.enable' | 'automations.disable' | 'automations.delete' | 'automations.deliveries';
      args: { id: string };
    };

export type AutomationResult = CreatedAutomation | Automation | Automation[] | DeliveryAttempt[] | { deleted: string };

const isText = (v: unknown): v is string => typeof v === 'string';

/** A request from another process (the control socket), checked; undefined when it is not an automations command. */
export function checkAutomationRequest(value: unknown): AutomationRequest | undefined {
  const r = value as { command?: unknown; args?: Record<string, any> } | null;
  const a = r?.args;
  if (typeof r?.command !== 'string' || !r.command.startsWith('automations.') || !a) return undefined;
  if (r.command === 'automations.list' && (a.project === undefined || isText(a.project)))
    return { command: r.command, args: { project: a.project } };
  if (
    ['automations.enable', 'automations.disable', 'automations.delete', 'automations.deliveries'].includes(r.command) &&
    isText(a.id)
  ) {
    return { command: r.command as 'automations.enable', args: { id: a.id } };
  }
  if (
    r.command === 'automations.create' &&
    isText(a.project) &&
    AUTOMATION_TYPES.includes(a.type) &&
    [a.url, a.name, a.routingKey].every((v) => v === undefined || isText(v)) &&
    Array.isArray(a.actions) &&
    a.actions.every((x: unknown) => AUTOMATION_ACTIONS.includes(x as AutomationAction)) &&
    a.headers !== null &&
    typeof a.headers === 'object' &&
    Object.values(a.headers).every(isText)
  ) {
    const { project, type, url, name, actions, headers, routingKey } = a as AutomationsCreateArgs;
    return { command: 'automations.create', args: { project, type, url, name, actions, headers, routingKey } };
  }
  return undefined;
}

const FLAGS: Record<AutomationField, string> = {
  url: '--url',
  routingKey: '--routing-key',
  headers: '--header',
  actions: '--actions',
};

function checkCreate(args: AutomationsCreateArgs): void {
  try {
    checkAutomationSpec(args);
  } catch (err) {
    if (err instanceof AutomationRuleError) throw new CommandError(`${FLAGS[err.field]} ${err.reason}`, 2);
    throw err;
  }
}

export async function runAutomationCommand(ctx: CommandContext, r: AutomationRequest): Promise<AutomationResult> {
  switch (r.command) {
    case 'automations.create': {
      checkCreate(r.args);
      const { name, type, url, actions, headers, routingKey } = r.args;
      const project = await requireProject(ctx.db, r.args.project);
      return addAutomation(
        ctx.db,
        project,
        { name, type, url, actions, headers, pagerdutyRoutingKey: routingKey },
        CLI_ACTOR,
      );
    }
    case 'automations.list':
      return listAutomations(ctx.db, r.args.project);
    case 'automations.enable':
    case 'automations.disable': {
      const changed = await switchAutomation(ctx.db, r.args.id, r.command === 'automations.enable', CLI_ACTOR);
      if (!changed) throw new CommandError(`unknown automation '${r.args.id}'`);
      return changed;
    }
    case 'automations.delete': {
      const found = await getAutomation(ctx.db, r.args.id);
      const project = found && (await getProject(ctx.db, found.projectId));
      if (!found || !project || !(await removeAutomation(ctx.db, project, found, CLI_ACTOR)))
        throw new CommandError(`unknown automation '${r.args.id}'`);
      return { deleted: found.id };
    }
    case 'automations.deliveries':
      if (!(await getAutomation(ctx.db, r.args.id))) throw new CommandError(`unknown automation '${r.args.id}'`);
      return listDeliveryAttempts(ctx.db, r.args.id);
  }
}
