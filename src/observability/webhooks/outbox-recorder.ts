// The PromptVersionEvents implementation: each event becomes one outbox row per enabled automation of its project
// whose trigger includes the action, in the caller's transaction (a rollback records nothing). The body delivered is
// built here, once, so every retry sends the same bytes; one event id is shared by all automations it reaches.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../platform/store/database.ts';
import {
  insertOutbox,
  matchingAutomations,
  type AutomationTarget,
  type OutboxInsert,
} from '../../platform/store/repos/automations.ts';
import type { PromptVersionEvent, PromptVersionEvents } from '../../platform/store/repos/prompt-version-events.ts';

/** The webhook delivery body (docs/webhooks.md, The delivery body). */
export interface WebhookDeliveryBody {
  id: string;
  timestamp: string;
  type: 'prompt-version';
  apiVersion: 'v1';
  action: PromptVersionEvent['action'];
  prompt: PromptVersionEvent['prompt'];
}

export function summarise(e: PromptVersionEvent): string {
  const labels = e.prompt.labels.length > 0 ? ` (labels: ${e.prompt.labels.join(', ')})` : '';
  return `Prompt '${e.prompt.name}' version ${e.prompt.version} ${e.action} in project '${e.prompt.projectId}'${labels}`;
}

/** The bytes POSTed for an automation's action type. */
export function deliveryBody(
  automation: AutomationTarget,
  body: WebhookDeliveryBody,
  event: PromptVersionEvent,
): string {
  if (automation.type === 'slack') return JSON.stringify({ text: summarise(event) });
  if (automation.type === 'pagerduty') {
    return JSON.stringify({
      routing_key: automation.pagerdutyRoutingKey,
      event_action: 'trigger',
      dedup_key: body.id,
      payload: {
        summary: summarise(event),
        source: 'svc',
        severity: 'info',
        timestamp: body.timestamp,
        custom_details: body,
      },
    });
  }
  return JSON.stringify(body);
}

export class OutboxRecorder implements PromptVersionEvents {
  readonly #now: () => number;
  /** Called after recording, so a delivery loop in this process can look sooner (the caller may not have committed yet). */
  readonly #recorded: (() => void) | undefined;

  constructor(options: { now?: () => number; recorded?: () => void } = {}) {
    this.#now = options.now ?? Date.now;
    this.#recorded = options.recorded;
  }

  async record(tx: Queryable, events: readonly PromptVersionEvent[]): Promise<void> {
    const rows: OutboxInsert[] = [];
    for (const event of events) {
      const automations = await matchingAutomations(tx, event.prompt.projectId, event.action);
      if (automations.length === 0) continue;
      const body: WebhookDeliveryBody = {
        id: randomUUID(),
        timestamp: new Date(this.#now()).toISOString(),
        type: 'prompt-version',
        apiVersion: 'v1',
        action: event.action,
        prompt: event.prompt,
      };
      for (const a of automations)
        rows.push({ eventId: body.id, automationId: a.id, action: event.action, body: deliveryBody(a, body, event) });
    }
    if (rows.length === 0) return;
    await insertOutbox(tx, rows);
    this.#recorded?.();
  }
}
