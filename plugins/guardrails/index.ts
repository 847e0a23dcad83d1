// guardrails: policies of detectors (PII, secrets, custom regexes, prompt-injection phrases, detection services)
// check prompts and answers. Block refuses with 400 guardrail_blocked, flag records in the trace; a service that
// cannot answer refuses with 503 guardrail_unavailable when its policy fails closed. Streamed answers cannot be
// refused once started: they get a verdict in the trace. Whatever a detector matched is handed to tracing as a
// redaction (ctx.redactions), so no trace holds it.
import { requestText, responseText, streamedText } from './detectors/checked-text.ts';
import {
  definePlugin,
  GatewayError,
  type PluginHooks,
  type RequestContext,
  stateSlot,
} from '../../src/plugin-api/index.ts';
import type { GuardrailsConfig } from './config.ts';
import { evaluate } from './evaluate.ts';
import { localScan } from './local-scan.ts';
import { compilePolicies, policiesFor, type Policy } from './policies.ts';
import { recordRedactions } from './redactions.ts';
import { enforce, recordStreamVerdict } from './verdicts.ts';
import schema from './schema.json' with { type: 'json' };

interface AnswerCheck {
  policies: Policy[];
  /** The answer is streamed: it is read from ctx.streamed once it ended. */
  stream: boolean;
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
      if (prompt.length > 0) {
        const checked = requestText(ctx.route, ctx.body);
        const verdicts = await evaluate(prompt, checked.text, scan);
        recordRedactions(ctx, 'prompt', checked, verdicts);
        enforce(ctx, 'prompt', verdicts);
      }
      const answer = covering.filter((p) => p.checkResponse);
      // Embeddings answer with vectors: nothing to read.
      if (answer.length > 0 && ctx.route === 'chat') {
        ctx.state.set(answerCheck, {
          policies: answer,
          stream: ctx.stream,
        });
      }
    }

    // Without a policy that reads answers the response hooks stay off, so responses keep the provider's raw bytes.
    if (!policies.some((p) => p.checkResponse)) return { onRequest };
    const hooks: PluginHooks = {
      onRequest,
      // A streamed answer is checked as the stream aggregate kept it (ctx.streamed), up to stream_max_chars.
      streamedTextChars: config.stream_max_chars,
      async onResponse(ctx, response) {
        const check = ctx.state.get(answerCheck);
        if (!check || response.kind !== 'json' || response.status < 200 || response.status >= 300) return;
        const checked = responseText(response.body);
        const verdicts = await evaluate(check.policies, checked.text, scan);
        recordRedactions(ctx, 'response', checked, verdicts);
        enforce(ctx, 'response', verdicts);
      },
      async onResponseEnd(ctx) {
        const check = ctx.state.get(answerCheck);
        if (!check?.stream || !ctx.streamed) return;
        const texts = ctx.streamed.texts(config.stream_max_chars);
        const { chars, truncated } = texts;
        const checked = streamedText(texts);
        // The stream is over: an overloaded pool leaves the verdict incomplete instead of failing anything.
        const verdicts = await evaluate(check.policies, checked.text, scan).catch((err: unknown) => {
          if (err instanceof GatewayError) return err;
          throw err;
        });
        if (!(verdicts instanceof GatewayError)) recordRedactions(ctx, 'response', checked, verdicts);
        recordStreamVerdict(ctx, verdicts, chars, truncated);
      },
    };
    return hooks;
  },
});
