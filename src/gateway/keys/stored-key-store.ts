// Gateway keys kept in the store, served from memory, with the agent status and project serving switch that decide
// whether they work. Changes made in this process apply at once (`refresh()` after the write); changes made by other
// processes arrive by polling for newer revisions (store.key_poll_ms).
import { timingSafeEqual } from 'node:crypto';
import type { Database } from '../../platform/store/database.ts';
import { agentsChangedSince, type AgentStatus } from '../../platform/store/repos/agents.ts';
import { gatewayKeysChangedSince, type StoredGatewayKey } from '../../platform/store/repos/gateway-keys.ts';
import { projectsChangedSince } from '../../platform/store/repos/projects.ts';
import { keyExpiry } from './key-store.ts';
import { parseNetworks } from '../../platform/networks.ts';
import type { Logger } from '../../platform/telemetry/logger.ts';
import type { KeyRecord, KeyStore } from '../../plugin-api/services.ts';

export class StoredKeyStore implements KeyStore {
  readonly #db: Database;
  readonly #log: Logger;
  readonly #byHash = new Map<string, KeyRecord>();
  readonly #hashById = new Map<string, string>();
  readonly #agentStatus = new Map<string, AgentStatus>();
  /** Projects whose serving switch is off in the store. */
  readonly #servingOff = new Set<string>();
  #keyRevision = 0;
  #agentRevision = 0;
  #projectRevision = 0;
  #refreshing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** performance.now() of the last refresh that reached the store (real time, whatever clock requests use). */
  lastRefreshAt = Number.NEGATIVE_INFINITY;

  constructor(db: Database, options: { log: Logger }) {
    this.#db = db;
    this.#log = options.log;
  }

  /** Milliseconds since the store last answered; Infinity before it first did (the keys are as stale as can be). */
  sinceLastRefresh(): number {
    return performance.now() - this.lastRefreshAt;
  }

  /** Loads every key and agent, then polls for changes every `pollMs`. */
  async start(pollMs: number): Promise<void> {
    await this.refresh();
    this.#timer = setInterval(() => {
      this.refresh().catch((err: Error) =>
        this.#log.warn('gateway key refresh failed; serving keys from memory', { error: err.message }),
      );
    }, pollMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Reads changes since the last refresh; concurrent callers share one read, and a caller arriving during a read gets the next one. */
  refresh(): Promise<void> {
    const run = async () => {
      const [keys, agents, projects] = await Promise.all([
        gatewayKeysChangedSince(this.#db, this.#keyRevision),
        agentsChangedSince(this.#db, this.#agentRevision),
        projectsChangedSince(this.#db, this.#projectRevision),
      ]);
      for (const k of keys) this.#apply(k);
      for (const a of agents) {
        this.#agentStatus.set(a.id, a.status);
        this.#agentRevision = Math.max(this.#agentRevision, a.revision);
      }
      for (const p of projects) {
        if (p.serving) this.#servingOff.delete(p.id);
        else this.#servingOff.add(p.id);
        this.#projectRevision = Math.max(this.#projectRevision, p.revision);
      }
      this.lastRefreshAt = performance.now();
    };
    const next = (this.#refreshing ?? Promise.resolve()).then(run, run);
    this.#refreshing = next;
    return next;
  }

  #apply(k: StoredGatewayKey): void {
    this.#keyRevision = Math.max(this.#keyRevision, k.revision);
    const previous = this.#hashById.get(k.id);
    if (previous !== undefined) this.#byHash.delete(previous);
    this.#hashById.delete(k.id);
    if (k.deleted) return;
    let networks;
    try {
      networks = k.allowedNetworks && k.allowedNetworks.length > 0 ? parseNetworks(k.allowedNetworks) : undefined;
    } catch {
      // Networks are validated when a key is minted; a row that still fails to parse must not open the key to everyone.
      networks = parseNetworks(['0.0.0.0/32']);
    }
    this.#hashById.set(k.id, k.keySha256);
    this.#byHash.set(k.keySha256, {
      id: k.id,
      alias: k.alias,
      projectId: k.projectId,
      agentId: k.agentId,
      modelGroups: k.modelGroups,
      hash: Buffer.from(k.keySha256, 'hex'),
      expiresAtMs: keyExpiry({
        expires_at: k.expiresAt,
        rotated_at: k.rotatedAt,
        rotation_grace_hours: k.rotationGraceHours,
      }),
      blocked: k.blocked,
      networks,
      rpm: k.rpm,
      tpm: k.tpm,
      budgetUsd: k.budgetUsd,
    });
  }

  find(hash: Buffer): KeyRecord | undefined {
    const record = this.#byHash.get(hash.toString('hex'));
    return record && timingSafeEqual(record.hash, hash) ? record : undefined;
  }

  agentSuspended(agentId: string): boolean {
    return this.#agentStatus.get(agentId) === 'suspended';
  }

  /** False when the project's serving switch is off in the store (set in the dashboard). */
  projectServing(projectId: string): boolean {
    return !this.#servingOff.has(projectId);
  }
}

/**
 * Keys from gateway.yaml first, then keys from the store; a key whose agent is suspended answers as blocked, and one
 * whose project has serving off (in gateway.yaml, `servingOffInConfig`, or in the store) as `servingOff`.
 * Stale once the store has not answered for `maxStalenessMs` (a block made meanwhile could not be seen).
 */
export function combinedKeyStore(
  configured: KeyStore,
  stored: StoredKeyStore,
  maxStalenessMs: number,
  servingOffInConfig: ReadonlySet<string>,
): KeyStore {
  return {
    stale: () => stored.sinceLastRefresh() > maxStalenessMs,
    find(hash) {
      const record = (configured.find(hash) as KeyRecord | undefined) ?? stored.find(hash);
      if (record === undefined) return undefined;
      if (servingOffInConfig.has(record.projectId) || !stored.projectServing(record.projectId))
        return { ...record, servingOff: true };
      if (record.agentId !== undefined && !record.blocked && stored.agentSuspended(record.agentId))
        return { ...record, blocked: true };
      return record;
    },
  };
}
