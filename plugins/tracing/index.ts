// tracing: every chat/embeddings request becomes a trace whose id is x-svc-request-id, written off the request
// path by the trace writer. Refusals follow the "traced" column of the error table in docs/api.md.
import { definePlugin, refusalCode } from '../../src/plugin-api/index.ts';
import { RefusalSampler } from './refusal-sampler.ts';
import schema from './schema.json' with { type: 'json' };

interface TracingConfig {
  record_content: boolean;
  max_output_chars: number;
}

/** Refusals never traced: the caller is unknown or the request never reached a decision worth keeping. */
const UNTRACED = new Set([
  'invalid_api_key',
  'gateway_config_stale',
  'invalid_request',
  'invalid_json',
  'unknown_route',
  'request_too_large',
  'unsupported_media_type',
]);
/** Refusals traced at most once per minute per key and reason. */
const SAMPLED = new Set(['key_blocked', 'key_expired', 'ip_not_allowed']);

export default definePlugin<TracingConfig>({
  apiVersion: 1,
  name: 'tracing',
  configSchema: schema,
  setup(config, services) {
    const sampler = new RefusalSampler(services.counters, services.clock);
    return {
      // A streamed answer's text is recorded from ctx.streamed, so the gateway keeps as much of it as is recorded.
      streamedTextChars: config.record_content ? config.max_output_chars : 0,
      onLog(ctx) {
        if (ctx.route === 'models' || !ctx.principal) return;
        // An unexpected gateway failure (500 without a code) is logged with its error id, not traced (docs/api.md).
        if (ctx.status === 500 && ctx.errorCode === null && ctx.error !== undefined && refusalCode(ctx) === undefined)
          return;
        const code = refusalCode(ctx);
        if (code !== undefined && UNTRACED.has(code)) return;
        const options = {
          recordContent: config.record_content,
          maxOutputChars: config.max_output_chars,
          now: services.clock.now(),
        };
        const trace = () => services.traces.record(ctx, options);
        if (code === undefined || !SAMPLED.has(code)) return trace();
        const { projectId, keyId } = ctx.principal;
        sampler.admit(projectId, keyId, code).then(
          (admitted) => admitted && trace(),
          (err: Error) =>
            ctx.log.error('tracing: refusal sampling failed; the refusal is not traced', {
              requestId: ctx.id,
              error: err.message,
            }),
        );
      },
    };
  },
});
