// Automations and their webhook deliveries (005_automations.sql): the rows, the outbox claims and the attempt log.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from '../database.ts';
import { selectPage, type PageWindow } from './page.ts';
import { iso, json, num } from './rows.ts';

export type AutomationAction = 'created' | 'updated' | 'deleted';
export type AutomationType = 'webhook' | 'slack' | 'pagerduty';
export const AUTOMATION_ACTIONS: readonly AutomationAction[] = ['created', 'updated', 'deleted'];
export const AUTOMATION_TYPES: readonly AutomationType[] = ['webhook', 'slack', 'pagerduty'];

export interface Automation {
  id: string;
  projectId: string;
  name: string;
  eventType: 'prompt-version';
  actions: AutomationAction[];
  type: AutomationType;
  url: string | null;
  headers: Record<string, string>;
  enabled: boolean;
  consecutiveFailures: number;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The automation as created: the signing secret (webhooks) appears here once. */
export interface CreatedAutomation extends Automation {
  signingSecret: string | null;
}

/** What delivery needs: the automation with its secrets. */
export interface AutomationTarget extends Automation {
  signingSecret: string | null;
  pagerdutyRoutingKey: string | null;
}

export interface AutomationInput {
  projectId: string;
  name?: string;
  actions?: readonly AutomationAction[];
  type: AutomationType;
  url?: string;
  headers?: Record<string, string>;
  pagerdutyRoutingKey?: string;
}

function toTarget(r: Record<string, any>): AutomationTarget {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    eventType: 'prompt-version',
    actions: r.actions,
    type: r.action_type,
    url: r.url ?? null,
    headers: r.headers ?? {},
    enabled: r.enabled === true,
    consecutiveFailures: num(r.consecutive_failures),
    disabledReason: r.disabled_reason ?? null,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
    signingSecret: r.signing_secret ?? null,
    pagerdutyRoutingKey: r.pagerduty_routing_key ?? null,
  };
}

function toAutomation(r: Record<string, any>): Automation {
  const { signingSecret: _s, pagerdutyRoutingKey: _k, ...automation } = toTarget(r);
  return automation;
}

/** A webhook signing secret: 256 random bits. */
const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

export async function createAutomation(db: Queryable, a: AutomationInput): Promise<CreatedAutomation> {
  const id = randomUUID();
  const secret = a.type === 'webhook' ? newSigningSecret() : null;
  const r = await db.query(
    `INSERT INTO automations (id, project_id, name, actions, action_type, url, headers, signing_secret, pagerduty_routing_key)
     VALUES ($1, $2, $3, $4::text::jsonb, $5, $6, $7::text::jsonb, $8, $9) RETURNING *`,
    [
      id,
      a.projectId,
      a.name ?? `${a.type} ${id.slice(0, 8)}`,
      json(a.actions ?? AUTOMATION_ACTIONS),
      a.type,
      a.url ?? null,
      json(a.headers ?? {}),
      secret,
      a.pagerdutyRoutingKey ?? null,
    ],
  );
  return { ...toAutomation(r.rows[0]!), signingSecret: secret };
}

export async function listAutomations(db: Queryable, projectId?: string): Promise<Automation[]> {
  const r = projectId
    ? await db.query('SELECT * FROM automations WHERE project_id = $1 ORDER BY created_at, id', [projectId])
    : await db.query('SELECT * FROM automations ORDER BY project_id, created_at, id');
  return r.rows.map(toAutomation);
}

export async function getAutomation(db: Queryable, id: string): Promise<Automation | undefined> {
  const r = await db.query('SELECT * FROM automations WHERE id = $1', [id]);
  return r.rows[0] ? toAutomation(r.rows[0]) : undefined;
}

/** Enabling also clears the failure streak, so a re-enabled automation gets five fresh chances. */
export async function setAutomationEnabled(
  db: Queryable,
  id: string,
  enabled: boolean,
  reason?: string,
): Promise<Automation | undefined> {
  const r = await db.query(
    `UPDATE automations SET enabled = $2, disabled_reason = $3, updated_at = now(),
       consecutive_failures = CASE WHEN $2 THEN 0 ELSE consecutive_failures END
     WHERE id = $1 RETURNING *`,
    [id, enabled, enabled ? null : (reason ?? 'disabled by an operator')],
  );
  return r.rows[0] ? toAutomation(r.rows[0]) : undefined;
}

export interface AutomationChange {
  name?: string;
  actions?: readonly AutomationAction[];
  /** The whole action, replacing the stored one; omitted headers or routing key keep the stored ones. */
  action?: { type: AutomationType; url?: string; headers?: Record<string, string>; pagerdutyRoutingKey?: string };
}

/**
 * Applies a change; an action that becomes a webhook gets a new signing secret (returned once, like at creation),
 * one that stops being a webhook loses its secret.
 */
export async function updateAutomation(
  db: Queryable,
  id: string,
  c: AutomationChange,
): Promise<CreatedAutomation | undefined> {
  const found = await db.query('SELECT * FROM automations WHERE id = $1 FOR UPDATE', [id]);
  if (!found.rows[0]) return undefined;
  const was = toTarget(found.rows[0]);
  const a = c.action ?? { type: was.type, url: was.url ?? undefined };
  const sameType = a.type === was.type;
  const secret = a.type !== 'webhook' ? null : sameType ? was.signingSecret : newSigningSecret();
  const r = await db.query(
    `UPDATE automations SET name = $2, actions = $3::text::jsonb, action_type = $4, url = $5, headers = $6::text::jsonb,
       pagerduty_routing_key = $7, signing_secret = $8, updated_at = now()
     WHERE id = $1 RETURNING *`,
    [
      id,
      c.name ?? was.name,
      json(c.actions ?? was.actions),
      a.type,
      a.type === 'pagerduty' ? null : (a.url ?? null),
      json(a.type !== 'webhook' ? {} : (a.headers ?? (sameType ? was.headers : {}))),
      a.type !== 'pagerduty' ? null : (a.pagerdutyRoutingKey ?? (sameType ? was.pagerdutyRoutingKey : null)),
      secret,
    ],
  );
  return { ...toAutomation(r.rows[0]!), signingSecret: sameType ? null : secret };
}

/** A new signing secret for a webhook automation (the old one stops signing at once); undefined when there is none. */
export async function rotateSigningSecret(db: Queryable, id: string): Promise<string | undefined> {
  const secret = newSigningSecret();
  const r = await db.query(
    `UPDATE automations SET signing_secret = $2, updated_at = now() WHERE id = $1 AND action_type = 'webhook'`,
    [id, secret],
  );
  return r.rowCount > 0 ? secret : undefined;
}

/** Makes an event of the automation due again (one more attempt, with the retries left after it); false when unknown. */
export async function requeueDelivery(db: Queryable, automationId: string, eventId: string): Promise<boolean> {
  const r = await db.query(
    `UPDATE webhook_outbox SET state = 'pending', next_attempt_at = now(), finished_at = NULL WHERE automation_id = $1 AND event_id = $2`,
    [automationId, eventId],
  );
  return r.rowCount > 0;
}

export async function deleteAutomation(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('DELETE FROM automations WHERE id = $1', [id])).rowCount > 0;
}

/** The enabled automations of a project whose trigger includes the action, with their secrets. */
export async function matchingAutomations(
  db: Queryable,
  projectId: string,
  action: AutomationAction,
): Promise<AutomationTarget[]> {
  const r = await db.query(
    `SELECT * FROM automations WHERE project_id = $1 AND enabled AND actions @> jsonb_build_array($2::text) ORDER BY created_at, id`,
    [projectId, action],
  );
  return r.rows.map(toTarget);
}

export interface OutboxInsert {
  eventId: string;
  automationId: string;
  action: AutomationAction;
  body: string;
}

export async function insertOutbox(db: Queryable, rows: readonly OutboxInsert[]): Promise<void> {
  for (const row of rows) {
    await db.query(
      `INSERT INTO webhook_outbox (event_id, automation_id, action, body) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [row.eventId, row.automationId, row.action, row.body],
    );
  }
}

export interface ClaimedDelivery {
  outboxId: number;
  eventId: string;
  body: string;
  /** This attempt's number (1 for the first). */
  attempt: number;
  automation: AutomationTarget;
}

/**
 * Claims due rows of enabled automations: `FOR UPDATE SKIP LOCKED` keeps concurrent claimers (replicas on one
 * Postgres) off each other's rows, and pushing `next_attempt_at` out by `leaseMs` in the same transaction keeps them
 * off after it commits, while the attempt runs. A process that dies mid-attempt leaves the row due again after it.
 */
export async function claimDueDeliveries(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const r = await db.query(
    `WITH due AS (
       SELECT o.id FROM webhook_outbox o JOIN automations a ON a.id = o.automation_id
       WHERE o.state = 'pending' AND o.next_attempt_at <= now() AND a.enabled
       ORDER BY o.next_attempt_at, o.id LIMIT $1 FOR UPDATE OF o SKIP LOCKED)
     UPDATE webhook_outbox o SET attempts = o.attempts + 1, next_attempt_at = now() + $2 * interval '1 millisecond'
     FROM due WHERE o.id = due.id
     RETURNING o.id, o.event_id, o.body, o.attempts, o.automation_id`,
    [limit, leaseMs],
  );
  if (r.rows.length === 0) return [];
  const ids = [...new Set(r.rows.map((x: any) => x.automation_id as string))];
  const automations = await db.query('SELECT * FROM automations WHERE id = ANY($1::text[])', [ids]);
  const byId = new Map(automations.rows.map((a) => [a.id as string, toTarget(a)]));
  return r.rows.map((x: any) => ({
    outboxId: num(x.id),
    eventId: x.event_id,
    body: x.body,
    attempt: num(x.attempts),
    automation: byId.get(x.automation_id)!,
  }));
}

export interface AttemptRecord {
  outboxId: number;
  attempt: number;
  status: number | null;
  latencyMs: number;
  response: string | null;
  error: string | null;
}

export async function recordAttempt(db: Queryable, a: AttemptRecord): Promise<void> {
  await db.query(
    `INSERT INTO webhook_attempts (outbox_id, attempt, status, latency_ms, response, error) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (outbox_id, attempt) DO NOTHING`,
    [a.outboxId, a.attempt, a.status, Math.round(a.latencyMs), a.response, a.error],
  );
}

/** A delivered event ends the automation's failure streak. */
export async function markDelivered(db: Queryable, outboxId: number, automationId: string): Promise<void> {
  await db.query(
    `UPDATE webhook_outbox SET state = 'delivered', last_error = NULL, finished_at = now() WHERE id = $1`,
    [outboxId],
  );
  await db.query('UPDATE automations SET consecutive_failures = 0 WHERE id = $1 AND consecutive_failures <> 0', [
    automationId,
  ]);
}

export async function scheduleRetry(db: Queryable, outboxId: number, delayMs: number, error: string): Promise<void> {
  await db.query(
    `UPDATE webhook_outbox SET last_error = $2, next_attempt_at = now() + $3 * interval '1 millisecond' WHERE id = $1`,
    [outboxId, error, delayMs],
  );
}

/**
 * The event failed for good (its last attempt failed): one more failed event in the automation's streak; at
 * `disableAfter` the automation is disabled. Returns true when this call disabled it.
 */
export async function markFailed(
  db: Queryable,
  outboxId: number,
  automationId: string,
  error: string,
  disableAfter: number,
): Promise<boolean> {
  await db.query(`UPDATE webhook_outbox SET state = 'failed', last_error = $2, finished_at = now() WHERE id = $1`, [
    outboxId,
    error,
  ]);
  const r = await db.query<{ enabled: boolean }>(
    `UPDATE automations SET consecutive_failures = consecutive_failures + 1,
       enabled = CASE WHEN consecutive_failures + 1 >= $2 THEN false ELSE enabled END,
       disabled_reason = CASE WHEN consecutive_failures + 1 >= $2 AND enabled
         THEN $3 ELSE disabled_reason END,
       updated_at = now()
     WHERE id = $1 RETURNING enabled, consecutive_failures`,
    [automationId, disableAfter, `${disableAfter} consecutive events failed; last error: ${error.slice(0, 300)}`],
  );
  const row = r.rows[0] as { enabled: boolean; consecutive_failures: unknown } | undefined;
  return row !== undefined && !row.enabled && num(row.consecutive_failures) === disableAfter;
}

export interface DeliveryAttempt {
  id: number;
  outboxId: number;
  eventId: string;
  action: string;
  state: 'pending' | 'delivered' | 'failed';
  attempt: number;
  at: string;
  status: number | null;
  latencyMs: number;
  response: string | null;
  error: string | null;
}

function toAttempt(x: Record<string, any>): DeliveryAttempt {
  return {
    id: num(x.id),
    outboxId: num(x.outbox_id),
    eventId: x.event_id,
    action: x.action,
    state: x.state,
    attempt: num(x.attempt),
    at: iso(x.at)!,
    status: x.status === null ? null : num(x.status),
    latencyMs: num(x.latency_ms),
    response: x.response ?? null,
    error: x.error ?? null,
  };
}

const attemptsOf = (automationId: string) => ({
  columns:
    't.id, o.id AS outbox_id, o.event_id, o.action, o.state, t.attempt, t.at, t.status, t.latency_ms, t.response, t.error',
  from: 'webhook_attempts t JOIN webhook_outbox o ON o.id = t.outbox_id',
  where: 'o.automation_id = $1',
  params: [automationId],
  orderBy: 't.at DESC, t.id DESC',
});

/** A page of an automation's attempt log, newest first, with the count of all its attempts. */
export function pageDeliveryAttempts(
  db: Queryable,
  automationId: string,
  page: PageWindow,
): Promise<{ data: DeliveryAttempt[]; total: number }> {
  return selectPage(db, attemptsOf(automationId), page, toAttempt);
}

/** The newest `limit` attempts of an automation's log. */
export async function listDeliveryAttempts(
  db: Queryable,
  automationId: string,
  limit = 100,
): Promise<DeliveryAttempt[]> {
  const q = attemptsOf(automationId);
  const r = await db.query(
    `SELECT ${q.columns} FROM ${q.from} WHERE ${q.where} ORDER BY ${q.orderBy} LIMIT ${Number(limit)}`,
    q.params,
  );
  return r.rows.map(toAttempt);
}

/** Deletes finished outbox rows (delivered or failed) that finished before `before`, with their attempts; returns how many. */
export async function pruneFinishedDeliveries(db: Queryable, before: Date): Promise<number> {
  const r = await db.query("DELETE FROM webhook_outbox WHERE state <> 'pending' AND finished_at < $1", [before]);
  return r.rowCount;
}
