// cache: answers non-streamed chat completions from earlier identical requests of the same project and model group.
// A streamed request may be answered from a stored answer, replayed as an OpenAI stream; only non-streamed answers
// are stored. A store that cannot be reached (Redis down) is a miss, never a failed request.
import {
  checkedUsage,
  CountersUnavailableError,
  definePlugin,
  type GatewayResponse,
  type RequestContext,
  type SharedValues,
  stateSlot,
} from '../../src/plugin-api/index.ts';
import { cacheDirectives } from './cache-directives.ts';
import { cacheKey } from './cache-key.ts';
import { completionChunks, isCacheable, type CachedCompletion } from './cached-completion.ts';
import schema from './schema.json' with { type: 'json' };

interface CacheConfig {
  backend: 'memory' | 'redis';
  ttl_s: number;
  max_bytes: number;
  max_entry_bytes: number;
}

/** What the lookup did, for the trace (`gateway.cache`). */
type Lookup = 'hit' | 'miss' | 'refresh' | 'bypass' | 'unavailable';

/** The key the answer of this request is stored under; absent when it must not be stored. */
const storeUnder = stateSlot<string>('cache.store-under');

/** An unreachable store (Redis down) is a miss, noted in the trace; any other failure is a bug and propagates. */
function unavailable(ctx: RequestContext, err: unknown): Lookup {
  if (!(err instanceof CountersUnavailableError)) throw err;
  ctx.annotations['gateway.cache_error'] = err.message;
  return 'unavailable';
}

function hit(ctx: RequestContext, stored: Buffer): GatewayResponse {
  const raw = stored.toString('utf8');
  const completion = JSON.parse(raw) as CachedCompletion;
  ctx.annotations['gateway.cache'] = 'hit';
  ctx.responseHeaders['x-svc-cache'] = 'hit';
  // The stored answer's usage is the provider's, unchecked when it was stored; what is not a count is left out.
  const checked = completion.usage === undefined ? undefined : checkedUsage(completion.usage);
  if (checked && 'usage' in checked) ctx.usage = checked.usage;
  // No provider was paid; streams keep x-svc-cost-estimated true, as every stream does (their cost is fixed at
  // admission, here 0).
  ctx.cost = 0;
  ctx.costEstimated = ctx.stream;
  if (ctx.stream) {
    const events = completionChunks(completion, ctx.clientWantsUsage);
    return { kind: 'stream', status: 200, source: 'cache', events };
  }
  return { kind: 'json', status: 200, source: 'cache', body: completion, raw };
}

export default definePlugin<CacheConfig>({
  apiVersion: 1,
  name: 'cache',
  configSchema: schema,
  setup(config, services) {
    const store: SharedValues | undefined =
      config.backend === 'redis' ? services.counters.shared : services.processValues('cache', config.max_bytes);
    if (!store) throw new Error("backend 'redis' needs store.redis_url: the shared store is Redis");
    const ttlMs = config.ttl_s * 1000;
    return {
      async onRequest(ctx) {
        if (ctx.route !== 'chat' || !ctx.principal || !ctx.group || !ctx.body) return;
        const key = cacheKey(ctx.principal.projectId, ctx.group.name, ctx.body);
        const { read, write } = cacheDirectives(ctx.headers);
        let outcome: Lookup = write ? 'refresh' : 'bypass';
        let stored: Buffer | null = null;
        if (read) {
          try {
            stored = await store.get(key);
            outcome = 'miss';
          } catch (err) {
            outcome = unavailable(ctx, err);
          }
        }
        if (stored) return hit(ctx, stored);
        ctx.annotations['gateway.cache'] = outcome;
        if (write && !ctx.stream) ctx.state.set(storeUnder, key);
      },
      async onResponseEnd(ctx) {
        const key = ctx.state.get(storeUnder);
        const response = ctx.response;
        if (key === undefined || ctx.status !== 200 || response?.kind !== 'json' || !isCacheable(response.body)) return;
        const value = Buffer.from(response.raw ?? JSON.stringify(response.body));
        if (value.length > config.max_entry_bytes) return;
        await store.set(key, value, ttlMs).catch((err: unknown) => unavailable(ctx, err));
      },
    };
  },
});
