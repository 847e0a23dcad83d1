// Delivers the webhook outbox in the background: claims due rows (several replicas never deliver one row at once,
// see claimDueDeliveries), signs webhook bodies in the worker pool, POSTs them, logs every attempt, and retries
// failures with exponential backoff and full jitter. An event counts as failed once its last attempt
// (`webhooks.max_attempts`) failed; an automation is disabled after DISABLE_AFTER failed events in a row — events,
// not attempts, so one slow outage of a receiver costs one strike per event, and any delivered event resets it.
// Ordering is not guaranteed: retries and concurrent replicas deliver events of one automation in any order.
import type { GatewayConfig } from '../../platform/config/types.ts';
import type { Database } from '../../platform/store/database.ts';
import {
  claimDueDeliveries,
  markDelivered,
  markFailed,
  pruneFinishedDeliveries,
  recordAttempt,
  scheduleRetry,
  type ClaimedDelivery,
} from '../../platform/store/repos/automations.ts';
import type { Logger } from '../../platform/telemetry/logger.ts';
import type { WorkerPool } from '../../platform/workers/pool.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';
import { createWebhookSender, type WebhookSender } from './webhook-sender.ts';

export const DISABLE_AFTER = 5;
const BATCH = 16;
/** Beyond the attempt's timeout, before a claimed row is due again (the claimer is presumed dead). */
const LEASE_MARGIN_MS = 5_000;
/** How often each process prunes finished events older than `webhooks.retention_days`. */
const PRUNE_EVERY_MS = 3_600_000;
const DAY_MS = 86_400_000;

export type WebhookSettings = GatewayConfig['webhooks'];

export interface WebhookDeliveryOptions {
  db: Database;
  workers: Pick<WorkerPool, 'run'>;
  log: Logger;
  settings: () => WebhookSettings;
  now?: () => number;
  random?: () => number;
}

/** Full jitter: a uniform wait up to the capped exponential step. */
export function retryDelayMs(
  attempt: number,
  settings: Pick<WebhookSettings, 'retry_base_ms' | 'retry_max_ms'>,
  random = Math.random,
): number {
  const cap = Math.min(settings.retry_max_ms, settings.retry_base_ms * 2 ** Math.min(attempt - 1, 30));
  return Math.floor(random() * cap);
}

export class WebhookDelivery {
  readonly #o: WebhookDeliveryOptions;
  readonly #sender: WebhookSender;
  #stopping = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  readonly stats = { attempts: 0, delivered: 0, failed_events: 0, disabled: 0, pruned: 0 };
  #prunedAt = -Infinity;

  constructor(options: WebhookDeliveryOptions) {
    this.#o = options;
    this.#sender = createWebhookSender(() => {
      const s = options.settings();
      return { allowPrivateNetworks: s.allow_private_networks, allowedHosts: s.allowed_hosts };
    });
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Looks for due rows now (after an event was recorded in this process). */
  wake(): void {
    // The recorder runs inside the caller's transaction: give it a moment to commit.
    setTimeout(() => this.#wake?.(), 20).unref();
  }

  /** Finishes the attempts under way (each bounded by its timeout) and stops; pending rows wait for the next start. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
    await this.#sender.close();
  }

  /** Claims one batch of due rows and delivers it; returns how many were claimed. */
  async runOnce(): Promise<number> {
    const settings = this.#o.settings();
    const claimed = await claimDueDeliveries(this.#o.db, BATCH, settings.timeout_ms + LEASE_MARGIN_MS);
    await Promise.all(claimed.map((d) => this.#deliver(d, settings)));
    return claimed.length;
  }

  /** Deletes finished events (and their attempt logs) older than the retention; returns how many. */
  async prune(): Promise<number> {
    const now = (this.#o.now ?? Date.now)();
    const pruned = await pruneFinishedDeliveries(
      this.#o.db,
      new Date(now - this.#o.settings().retention_days * DAY_MS),
    );
    this.stats.pruned += pruned;
    this.#prunedAt = now;
    return pruned;
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#stopping) {
      try {
        if ((this.#o.now ?? Date.now)() - this.#prunedAt >= PRUNE_EVERY_MS) await this.prune();
        const n = await this.runOnce();
        failures = 0;
        if (n < BATCH) await this.#sleep(this.#o.settings().poll_ms);
      } catch (err) {
        failures++;
        if (failures === 1) this.#o.log.warn('webhook outbox unavailable; retrying', { error: (err as Error).message });
        await this.#sleep(Math.min(30_000, this.#o.settings().poll_ms * 2 ** Math.min(failures, 8)));
      }
    }
  }

  async #deliver(d: ClaimedDelivery, settings: WebhookSettings): Promise<void> {
    const a = d.automation;
    const started = performance.now();
    let status: number | null = null;
    let answer: string | null = null;
    let error: string | null = null;
    try {
      const headers: Record<string, string> = { 'x-svc-event-id': d.eventId };
      if (a.type === 'webhook') {
        Object.assign(headers, a.headers);
        const [hex] = await this.#o.workers.run('signWebhookBodies', { secret: a.signingSecret!, bodies: [d.body] });
        headers[SIGNATURE_HEADER] = signatureHeader(Math.floor((this.#o.now ?? Date.now)() / 1000), hex!);
      }
      const url = a.type === 'pagerduty' ? settings.pagerduty_url : a.url!;
      const res = await this.#sender.send(url, d.body, headers, settings.timeout_ms);
      status = res.status;
      answer = res.answer;
      if (status < 200 || status > 299) error = `HTTP ${status}`;
    } catch (err) {
      error = describe(err, settings.timeout_ms);
    }
    const latencyMs = performance.now() - started;
    this.stats.attempts++;
    await this.#o.db.transaction(async (tx) => {
      await recordAttempt(tx, { outboxId: d.outboxId, attempt: d.attempt, status, latencyMs, response: answer, error });
      if (error === null) {
        this.stats.delivered++;
        await markDelivered(tx, d.outboxId, a.id);
      } else if (d.attempt < settings.max_attempts) {
        await scheduleRetry(tx, d.outboxId, retryDelayMs(d.attempt, settings, this.#o.random), error);
      } else {
        this.stats.failed_events++;
        if (await markFailed(tx, d.outboxId, a.id, error, DISABLE_AFTER)) {
          this.stats.disabled++;
          this.#o.log.warn('automation disabled after consecutive failed events', {
            automation: a.id,
            project: a.projectId,
            failed_events: DISABLE_AFTER,
            error,
          });
        }
      }
    });
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => (clearTimeout(timer), resolve());
    });
  }
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as Error & { code?: string; cause?: Error & { code?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `timed out after ${timeoutMs} ms`;
  const cause = e?.cause ? `: ${e.cause.message || e.cause.code}` : '';
  return `${e?.message || e?.code || String(err)}${cause}`.slice(0, 500);
}
