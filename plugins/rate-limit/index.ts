// rate-limit: requests and tokens per calendar minute, per key (the key's rpm/tpm) and per project (gateway.yaml
// projects[].rpm/tpm). One atomic check-and-add over every limit that applies, in the shared counters, so replicas
// sharing Redis enforce one limit. Tokens are reserved at admission and settled when the request ends. With budget
// listed right after it, its checks are admitted and settled by budget in the same counters step (the contract's
// admission handoff, src/plugin-api/admission-handoff.ts).
import {
  admitsWithBudget,
  CountersUnavailableError,
  definePlugin,
  GatewayError,
  type MinuteCheck,
  minuteHandoff,
  projectTag,
  type RequestContext,
  stateSlot,
} from '../../src/plugin-api/index.ts';
import schema from './schema.json' with { type: 'json' };
import { tokenSettlement, tokensToReserve } from './token-reservation.ts';

interface RateLimitConfig {
  key_defaults: { rpm?: number; tpm?: number };
}

interface Limit {
  kind: 'requests' | 'tokens';
  scope: 'key' | 'project';
  value: number;
}

interface Reservation {
  minute: number;
  tokens: number;
  tokenKeys: string[];
}

const reservation = stateSlot<Reservation>('rate-limit.reservation');

function refusal(ctx: RequestContext, limit: Limit, msLeft: number): GatewayError {
  const who = limit.scope === 'key' ? `key '${ctx.principal!.alias}'` : `project '${ctx.principal!.projectId}'`;
  const what = limit.kind === 'requests' ? 'requests' : 'tokens';
  const retryAfter = Math.max(1, Math.ceil(msLeft / 1000));
  return new GatewayError(
    limit.kind === 'requests' ? 'rate_limit_exceeded' : 'tokens_limit_exceeded',
    `Rate limit reached: ${who} allows ${limit.value} ${what} per minute. Retry after ${retryAfter} s.`,
    { retryAfter, details: { scope: limit.scope, limit: limit.value, unit: `${what}_per_minute` } },
  );
}

function unavailable(err: unknown): never {
  if (err instanceof CountersUnavailableError) {
    throw new GatewayError(
      'gateway_config_stale',
      'The gateway cannot enforce its rate limits: its counters store is unavailable. Retry shortly.',
      { cause: err },
    );
  }
  throw err;
}

export default definePlugin<RateLimitConfig>({
  apiVersion: 1,
  name: 'rate-limit',
  configSchema: schema,
  setup(config, services) {
    const projects = new Map(services.config.projects.map((p) => [p.id, p]));
    const handsOff = admitsWithBudget(services.config.plugins);
    return {
      async onRequest(ctx) {
        const principal = ctx.principal;
        if (ctx.route === 'models' || !principal) return;
        const project = projects.get(principal.projectId);
        const tag = projectTag(principal.projectId);
        const checks: MinuteCheck[] = [];
        const limits: Limit[] = [];
        const tokenKeys: string[] = [];
        const add = (key: string, amount: number, limit: Limit | undefined) => {
          if (!limit) return;
          checks.push({ key, amount, limit: limit.value });
          limits.push(limit);
          if (limit.kind === 'tokens') tokenKeys.push(key);
        };
        const limitOf = (kind: Limit['kind'], scope: Limit['scope'], value: number | undefined): Limit | undefined =>
          value === undefined ? undefined : { kind, scope, value };
        const keyRpm = principal.rpm ?? config.key_defaults.rpm;
        const keyTpm = principal.tpm ?? config.key_defaults.tpm;
        add(`${tag}:rpm:k:${principal.keyId}`, 1, limitOf('requests', 'key', keyRpm));
        add(`${tag}:rpm:p`, 1, limitOf('requests', 'project', project?.rpm));
        const tokens = keyTpm !== undefined || project?.tpm !== undefined ? tokensToReserve(ctx) : 0;
        add(`${tag}:tpm:k:${principal.keyId}`, tokens, limitOf('tokens', 'key', keyTpm));
        add(`${tag}:tpm:p`, tokens, limitOf('tokens', 'project', project?.tpm));
        if (checks.length === 0) return;
        if (handsOff) {
          ctx.state.set(minuteHandoff, {
            checks,
            refusal: (failed, msLeft) => refusal(ctx, limits[failed], msLeft),
            unavailable,
            settlement: (ended) => tokenSettlement(ended, tokens, tokenKeys),
          });
          return;
        }
        const admission = await services.counters.admitMinute(checks).catch(unavailable);
        if (!admission.allowed) throw refusal(ctx, limits[admission.failed], admission.msLeft);
        if (tokenKeys.length > 0) ctx.state.set(reservation, { minute: admission.minute, tokens, tokenKeys });
      },
      onLog(ctx) {
        const r = ctx.state.get(reservation);
        if (!r) return;
        const adjustments = tokenSettlement(ctx, r.tokens, r.tokenKeys);
        if (adjustments.length === 0) return;
        services.counters.adjustMinute(r.minute, adjustments).catch((err: Error) => {
          ctx.log.warn('rate-limit: token settlement failed; the reservation stands until the window ends', {
            requestId: ctx.id,
            error: err.message,
          });
        });
      },
    };
  },
});
