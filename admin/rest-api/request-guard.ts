// The onRequest hook of every REST API request: request id, authentication, the rate limit, then permission.
// Authentication runs first so the limit is the key's; a request whose key fails is limited by its client address (same
// rule), so guessing keys is throttled too. The limit is kept in the counters store, so replicas sharing Redis count
// each key once. The rule is docs/rest-api.md "Rate limiting" (1,000 requests per minute, burst 100, per key;
// `api.rate_limit`), and every path through here that reached the limit sets the rate-limit headers, which report the
// current minute's window (X-RateLimit-Limit, -Remaining, -Reset).
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { RateLimitDecision } from '../../src/platform/store/counters/rate-limit.ts';
import { CountersUnavailableError } from '../../src/platform/store/counters/counters.ts';
import type { Project } from '../../src/platform/store/repos/projects.ts';
import { noteApiKeyUse } from '../../src/platform/store/api-key-use.ts';
import type { AdminContext } from '../context.ts';
import { authenticate, authorize, type RestPrincipal } from './api-key-auth.ts';
import { requestIdFor } from './request-id.ts';
import { RestApiError } from './rest-error.ts';

const requestIds = new WeakMap<FastifyRequest, string>();
const projects = new WeakMap<FastifyRequest, Project>();

function setRateLimitHeaders(reply: FastifyReply, d: RateLimitDecision): void {
  reply.header('x-ratelimit-limit', String(d.limit));
  reply.header('x-ratelimit-remaining', String(d.remaining));
  reply.header('x-ratelimit-reset', String(Math.ceil(d.resetAt / 1000)));
}

/** The counters key of a rate limit: hash-tagged, so its minute counters and burst bucket share a Redis Cluster slot. */
const limitKey = (bucket: string) => `{rest:${bucket}}:rate`;

export function requestGuard(ctx: AdminContext): onRequestAsyncHookHandler {
  return async (req, reply) => {
    const requestId = requestIdFor(req.headers['x-request-id']);
    requestIds.set(req, requestId);
    reply.header('x-request-id', requestId);
    const now = ctx.clock.now();
    let principal: RestPrincipal | undefined;
    let failure: unknown;
    try {
      principal = await authenticate(ctx.db, req.headers.authorization, now);
      noteApiKeyUse(ctx.db, ctx.log, principal.apiKey.id, now);
    } catch (err) {
      failure = err;
    }
    const { requests_per_minute, burst } = ctx.config().api.rate_limit;
    const bucket = principal ? `key:${principal.apiKey.id}` : `ip:${req.ip}`;
    let decision: RateLimitDecision;
    try {
      decision = await ctx.counters.admitRate(limitKey(bucket), { requestsPerMinute: requests_per_minute, burst });
    } catch (err) {
      if (!(err instanceof CountersUnavailableError)) throw err;
      // The limit cannot be counted: refused as the gateway refuses when its counters store is unavailable.
      throw new RestApiError('service_unavailable', 'The rate-limit store is unreachable; retry shortly.', {
        reason: 'counters unavailable',
      });
    }
    setRateLimitHeaders(reply, decision);
    if (!decision.allowed) {
      const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      reply.header('retry-after', String(retryAfter));
      const what =
        decision.refusedBy === 'burst'
          ? `more than ${burst} requests in a burst`
          : `more than ${requests_per_minute} requests this minute`;
      throw new RestApiError('rate_limit_exceeded', `Too many requests (${what}); retry after ${retryAfter} s.`, {
        limit: decision.limit,
        burst,
        reason: decision.refusedBy,
        retryAfter,
      });
    }
    if (!principal) throw failure;
    projects.set(req, authorize(principal, req.method));
  };
}

/** The request id the guard chose (empty before it ran). */
export function requestIdOf(req: FastifyRequest): string {
  return requestIds.get(req) ?? '';
}

/** The project of the key that the guard let through; only in route handlers. */
export function projectOf(req: FastifyRequest): Project {
  const project = projects.get(req);
  if (!project) throw new Error(`REST API route ${req.method} ${req.url} ran without the request guard`);
  return project;
}
