// guardrails: policies of detectors (PII, secrets, custom regexes, prompt-injection phrases, detection services)
// check prompts and answers. Block refuses with 400 guardrail_blocked, flag records in the trace; a service that
// cannot answer refuses with 503 guardrail_unavailable when its policy fails closed. Streamed answers cannot be
// refused once started: they get a verdict in the trace.
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { chunkText, requestText, responseText } from '../../src/guardrails/checked-text.ts';
import { definePlugin } from '../../src/pipeline/define-plugin.ts';
import { stateSlot } from '../../src/pipeline/state.ts';
import type { PluginHooks, RequestContext } from '../../src/pipeline/types.ts';
import type { GuardrailsConfig } from './config.ts';
import { evaluate } from './evaluate.ts';
import { localScan } from './local-scan.ts';
import { compilePolicies, policiesFor, type Policy } from './policies.ts';
import { StreamText } from './stream-text.ts';
import { enforce, recordStreamVerdict } from './verdicts.ts';
import schema from './schema.json' with { type: 'json' };

interface AnswerCheck {
  policies: Policy[];
  /** Set for streamed requests. */
  stream?: StreamText;
}

const answerCheck = stateSlot<AnswerCheck>('guardrails.answer');

export default definePlugin<GuardrailsConfig>({
  apiVersion: 1,
  name: 'guardrails',
  configSchema: schema,
  setup(config, services) {
    const policies = compilePolicies(config, services.dispatcher);
    const scan = localScan(services.workers, config.worker_threshold_chars);

    async function onRequest(ctx: RequestContext): Promise<void> {
      if (ctx.route === 'models') return;
      const covering = policiesFor(policies, ctx.principal?.projectId, ctx.group?.name);
      const prompt = covering.filter((p) => p.checkPrompt);
      if (prompt.length > 0) enforce(ctx, 'prompt', await evaluate(prompt, requestText(ctx.route, ctx.body), scan));
      const answer = covering.filter((p) => p.checkResponse);
      // Embeddings answer with vectors: nothing to read.
      if (answer.length > 0 && ctx.route === 'chat') {
        ctx.state.set(answerCheck, { policies: answer, stream: ctx.stream ? new StreamText(config.stream_max_chars) : undefined });
      }
    }

    // Without a policy that reads answers the response hooks stay off, so responses keep the provider's raw bytes.
    if (!policies.some((p) => p.checkResponse)) return { onRequest };
    const hooks: PluginHooks = {
      onRequest,
      async onResponse(ctx, response) {
        const check = ctx.state.get(answerCheck);
        if (!check || response.kind !== 'json' || response.status < 200 || response.status >= 300) return;
        enforce(ctx, 'response', await evaluate(check.policies, responseText(response.body), scan));
      },
      onEvent(ctx, chunk) {
        ctx.state.get(answerCheck)?.stream?.add(chunkText(chunk));
      },
      async onResponseEnd(ctx) {
        const check = ctx.state.get(answerCheck);
        if (!check?.stream) return;
        const { text, chars, truncated } = check.stream;
        // The stream is over: an overloaded pool leaves the verdict incomplete instead of failing anything.
        const verdicts = await evaluate(check.policies, text, scan).catch((err: unknown) => {
          if (err instanceof GatewayError) return err;
          throw err;
        });
        recordStreamVerdict(ctx, verdicts, chars, truncated);
      },
    };
    return hooks;
  },
});
