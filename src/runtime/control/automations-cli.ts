// `svc automations create|list|enable|disable|delete|deliveries`: flags in, a store command run (see store-cli.ts),
// the result printed for people or (--json) for scripts. The signing secret of a webhook is printed once, at create.
import {
  AUTOMATION_ACTIONS,
  AUTOMATION_TYPES,
  type Automation,
  type AutomationAction,
  type AutomationType,
  type CreatedAutomation,
  type DeliveryAttempt,
} from '../../platform/store/repos/automations.ts';
import type { AutomationRequest } from './automation-commands.ts';
import { optional, parse, required, runRequest, subcommandOf, UsageError } from './store-cli.ts';

const SUBCOMMANDS = ['create', 'list', 'enable', 'disable', 'delete', 'deliveries'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];
const CREATE_FLAGS = {
  project: { type: 'string' },
  url: { type: 'string' },
  name: { type: 'string' },
  actions: { type: 'string' },
  type: { type: 'string', default: 'webhook' },
  header: { type: 'string', multiple: true },
  'routing-key': { type: 'string' },
} as const;
const ID_FLAGS = { id: { type: 'string' }, automation: { type: 'string' } } as const;

function headerPairs(values: string[] | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const v of values ?? []) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new UsageError(`--header '${v}' must be NAME=VALUE`);
    headers[v.slice(0, eq).trim().toLowerCase()] = v.slice(eq + 1);
  }
  return headers;
}

function actionList(value: string | undefined): AutomationAction[] {
  if (value === undefined) return [...AUTOMATION_ACTIONS];
  const actions = value
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  for (const a of actions)
    if (!AUTOMATION_ACTIONS.includes(a as AutomationAction))
      throw new UsageError(`--actions: '${a}' is not one of ${AUTOMATION_ACTIONS.join(', ')}`);
  if (actions.length === 0) throw new UsageError('--actions needs at least one action');
  return [...new Set(actions)] as AutomationAction[];
}

function request(sub: Subcommand, args: string[]): { request: AutomationRequest; values: Record<string, unknown> } {
  if (sub === 'create') {
    const values = parse(args, CREATE_FLAGS, sub) as Record<string, any>;
    const type = values.type as string;
    if (!AUTOMATION_TYPES.includes(type as AutomationType))
      throw new UsageError(`--type must be one of ${AUTOMATION_TYPES.join(', ')}, not '${type}'`);
    return {
      values,
      request: {
        command: 'automations.create',
        args: {
          project: required(values, 'project'),
          type: type as AutomationType,
          url: optional(values, 'url'),
          name: optional(values, 'name'),
          actions: actionList(optional(values, 'actions')),
          headers: headerPairs(values.header),
          routingKey: optional(values, 'routing-key'),
        },
      },
    };
  }
  if (sub === 'list') {
    const values = parse(args, { project: { type: 'string' } }, sub);
    return { values, request: { command: 'automations.list', args: { project: optional(values, 'project') } } };
  }
  const values = parse(args, ID_FLAGS, sub);
  const id = optional(values, 'automation') ?? optional(values, 'id');
  if (!id) throw new UsageError('--automation ID is required');
  return { values, request: { command: `automations.${sub}`, args: { id } } };
}

export async function automationsCommand(args: string[]): Promise<number> {
  const sub = subcommandOf(args, { ...CREATE_FLAGS, ...ID_FLAGS });
  if (!SUBCOMMANDS.includes(sub as Subcommand))
    throw new UsageError(
      sub ? `unknown subcommand 'automations ${sub}'` : `missing subcommand: one of ${SUBCOMMANDS.join(', ')}`,
    );
  const { request: r, values } = request(sub as Subcommand, args);
  const result = await runRequest(values.config as string, r);
  if (typeof result === 'number') return result;
  if (values.json === true) console.log(JSON.stringify(result));
  else if (r.command === 'automations.create') printCreated(result as CreatedAutomation);
  else if (r.command === 'automations.list') printList(result as Automation[]);
  else if (r.command === 'automations.deliveries') printAttempts(result as DeliveryAttempt[]);
  else if (r.command === 'automations.delete') console.log(`Deleted automation ${r.args.id} and its delivery log.`);
  else printList([result as Automation]);
  return 0;
}

function target(a: Automation): string {
  return a.type === 'pagerduty' ? 'PagerDuty Events v2' : (a.url ?? '');
}

function printCreated(a: CreatedAutomation): void {
  console.log(
    [
      `Created ${a.type} automation '${a.name}' for project '${a.projectId}'.`,
      `  id:       ${a.id}`,
      `  trigger:  prompt-version ${a.actions.join(', ')}`,
      `  target:   ${target(a)}`,
      ...(a.signingSecret
        ? [
            `  signing secret: ${a.signingSecret}`,
            'The signing secret is shown once and cannot be shown again: keep it now (docs/webhooks.md verifies with it).',
          ]
        : []),
    ].join('\n'),
  );
}

function printList(list: Automation[]): void {
  if (list.length === 0) console.log('No automations.');
  for (const a of list) {
    const state = a.enabled ? 'enabled' : `disabled${a.disabledReason ? ` (${a.disabledReason})` : ''}`;
    console.log(
      `${a.id}  ${a.projectId}  ${a.type}  ${a.name}  [${a.actions.join(',')}]  ${target(a)}  ${state}  failed events in a row: ${a.consecutiveFailures}`,
    );
  }
}

function printAttempts(list: DeliveryAttempt[]): void {
  if (list.length === 0) console.log('No delivery attempts.');
  for (const x of list) {
    console.log(
      `${x.at}  event ${x.eventId} (${x.action}, ${x.state})  attempt ${x.attempt}  ${x.status ?? '-'}  ${x.latencyMs} ms${x.error ? `  ${x.error}` : ''}`,
    );
  }
}
