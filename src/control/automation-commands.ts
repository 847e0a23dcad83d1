// `svc automations …`: create, list, enable, disable, delete automations and read their delivery attempts, run
// against an open store like the other store commands (here, or in the running service over the control socket).
import { writeAudit } from '../store/repos/audit-log.ts';
import {
  AUTOMATION_ACTIONS,
  AUTOMATION_TYPES,
  createAutomation,
  deleteAutomation,
  getAutomation,
  listAutomations,
  listDeliveryAttempts,
  setAutomationEnabled,
  type Automation,
  type AutomationAction,
  type AutomationType,
  type CreatedAutomation,
  type DeliveryAttempt,
} from '../store/repos/automations.ts';
import { getProject } from '../store/repos/projects.ts';
import { AutomationRuleError, checkAutomationSpec, type AutomationField } from '../webhooks/automation-rules.ts';
import { CommandError, type CommandContext } from './commands.ts';

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

async function audit(
  ctx: CommandContext,
  a: Automation,
  action: string,
  details: Record<string, unknown> = {},
): Promise<void> {
  const project = await getProject(ctx.db, a.projectId);
  await writeAudit(ctx.db, {
    organizationId: project?.organizationId,
    projectId: a.projectId,
    actor: 'cli',
    action,
    resourceType: 'automation',
    resourceId: a.id,
    details,
  });
}

export async function runAutomationCommand(ctx: CommandContext, r: AutomationRequest): Promise<AutomationResult> {
  switch (r.command) {
    case 'automations.create': {
      checkCreate(r.args);
      return ctx.db.transaction(async (tx) => {
        const project = await getProject(tx, r.args.project);
        if (!project)
          throw new CommandError(
            `unknown project '${r.args.project}' (projects come from gateway.yaml and are created when svc starts)`,
          );
        const created = await createAutomation(tx, {
          projectId: project.id,
          name: r.args.name,
          type: r.args.type,
          url: r.args.url,
          actions: r.args.actions,
          headers: r.args.headers,
          pagerdutyRoutingKey: r.args.routingKey,
        });
        await writeAudit(tx, {
          organizationId: project.organizationId,
          projectId: project.id,
          actor: 'cli',
          action: 'automation.create',
          resourceType: 'automation',
          resourceId: created.id,
          details: { type: created.type, url: created.url, actions: created.actions },
        });
        return created;
      });
    }
    case 'automations.list':
      return listAutomations(ctx.db, r.args.project);
    case 'automations.enable':
    case 'automations.disable': {
      const changed = await setAutomationEnabled(ctx.db, r.args.id, r.command === 'automations.enable');
      if (!changed) throw new CommandError(`unknown automation '${r.args.id}'`);
      await audit(ctx, changed, r.command === 'automations.enable' ? 'automation.enable' : 'automation.disable');
      return changed;
    }
    case 'automations.delete': {
      const found = await getAutomation(ctx.db, r.args.id);
      if (!found || !(await deleteAutomation(ctx.db, r.args.id)))
        throw new CommandError(`unknown automation '${r.args.id}'`);
      await audit(ctx, found, 'automation.delete');
      return { deleted: found.id };
    }
    case 'automations.deliveries':
      if (!(await getAutomation(ctx.db, r.args.id))) throw new CommandError(`unknown automation '${r.args.id}'`);
      return listDeliveryAttempts(ctx.db, r.args.id);
  }
}
