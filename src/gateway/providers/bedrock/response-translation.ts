// Bedrock Converse response → OpenAI chat.completion (docs/providers/bedrock.md "Response mapping").
import type { JsonObject, Usage } from '../../../platform/openai/wire-types.ts';
import { isObject } from '../../../platform/validation/json-object.ts';
import { UpstreamError } from '../../../plugin-api/errors.ts';
import { reportedUsage, requiredCount, translatedUsage, zeroUsage } from '../usage-rule.ts';

const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

/** Bedrock stopReason → OpenAI finish_reason; unknown values (malformed_model_output, …) end as `stop`. */
export function finishReason(stopReason: unknown): string {
  return (typeof stopReason === 'string' && FINISH_REASONS[stopReason]) || 'stop';
}

/**
 * Bedrock usage by the one usage rule, uncoerced: the router checks it. Bedrock's inputTokens excludes cache reads and
 * writes. Undefined when the response carried no token counts.
 */
export function bedrockUsage(usage: unknown): Usage | undefined {
  const u = reportedUsage(usage, ['inputTokens', 'outputTokens']);
  if (!isObject(u)) return u as Usage | undefined;
  return translatedUsage({
    prompt: [requiredCount(u.inputTokens), u.cacheReadInputTokens, u.cacheWriteInputTokens],
    completion: [requiredCount(u.outputTokens)],
    cacheRead: u.cacheReadInputTokens,
    cacheWrite: u.cacheWriteInputTokens,
  });
}

export interface ResponseMeta {
  id: string;
  model: string | undefined;
  /** Unix seconds. */
  created: number;
}

/** The OpenAI chat.completion for a Converse response body. */
export function chatCompletion(converse: JsonObject, meta: ResponseMeta): { body: JsonObject; usage?: Usage } {
  const output = isObject(converse.output) ? converse.output : undefined;
  const message = output && isObject(output.message) ? output.message : undefined;
  if (!message || !Array.isArray(message.content)) {
    throw new UpstreamError('invalid_response', 'Bedrock answered without output.message.content', { status: 200 });
  }
  let text = '';
  const toolCalls: JsonObject[] = [];
  for (const block of message.content) {
    if (!isObject(block)) continue;
    if (typeof block.text === 'string') text += block.text;
    else if (isObject(block.toolUse)) {
      const use = block.toolUse;
      toolCalls.push({
        id: String(use.toolUseId ?? ''),
        type: 'function',
        function: { name: String(use.name ?? ''), arguments: JSON.stringify(use.input ?? {}) },
      });
    }
  }
  const usage = bedrockUsage(converse.usage);
  const body: JsonObject = {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(converse.stopReason),
      },
    ],
    // The client's answer keeps OpenAI's shape; the gateway books an estimate when the provider sent no usage.
    usage: usage ?? zeroUsage(),
  };
  return { body, usage };
}
