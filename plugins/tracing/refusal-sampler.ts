// "Sampled" refusals (docs/api.md, Errors) are traced at most once per minute per key and reason, across every replica:
// the first replica to claim the key's window in the counters store (SET NX PX in Redis) traces it. Each process also
// remembers the windows it saw claimed, so a flood of refusals for one key costs one store call per window, not one per
// request. While the store cannot be reached, each process samples on its own (at most once per minute each).
import { type Clock, type Counters, CountersUnavailableError, projectTag } from '../../src/plugin-api/index.ts';

const WINDOW_MS = 60_000;
const MAX_REMEMBERED = 10_000;

export class RefusalSampler {
  readonly #counters: Pick<Counters, 'claimMark'>;
  readonly #clock: Clock;
  /** Key and reason → when its window (claimed here or by another replica) ends, on this process's clock. */
  readonly #quietUntil = new Map<string, number>();

  constructor(counters: Pick<Counters, 'claimMark'>, clock: Clock) {
    this.#counters = counters;
    this.#clock = clock;
  }

  /** Resolves true when no replica traced this key and reason within the window; the window is then claimed. */
  async admit(projectId: string, keyId: string, reason: string): Promise<boolean> {
    const id = `${keyId}\u0000${reason}`;
    const now = this.#clock.now();
    if ((this.#quietUntil.get(id) ?? 0) > now) return false;
    let claim: { claimed: boolean; msLeft: number };
    try {
      claim = await this.#counters.claimMark(`${projectTag(projectId)}:refusal-trace:${keyId}:${reason}`, WINDOW_MS);
    } catch (err) {
      if (!(err instanceof CountersUnavailableError)) throw err;
      claim = { claimed: true, msLeft: WINDOW_MS };
    }
    this.#remember(id, now + claim.msLeft, now);
    return claim.claimed;
  }

  #remember(id: string, until: number, now: number): void {
    this.#quietUntil.set(id, until);
    if (this.#quietUntil.size > MAX_REMEMBERED)
      for (const [k, t] of this.#quietUntil) if (t <= now) this.#quietUntil.delete(k);
  }
}
