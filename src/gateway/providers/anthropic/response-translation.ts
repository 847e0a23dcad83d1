// Anthropic Messages response → OpenAI chat.completion (docs/providers/anthropic.md). Pure, like the request side.
import type { JsonObject, Usage } from '../../../platform/openai/wire-types.ts';
import { isObject } from '../../../platform/validation/json-object.ts';
import { UpstreamError } from '../../../plugin-api/errors.ts';
import { nullableCount, reportedUsage, requiredCount, translatedUsage, zeroUsage } from '../usage-rule.ts';
import { JSON_RESPONSE_TOOL } from './request-translation.ts';

export interface AnthropicResponseOptions {
  /** Unix seconds for `created`. */
  created: number;
  /** Model name when the response carries none. */
  model?: string;
}

const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/** OpenAI finish_reason for an Anthropic stop_reason; unknown or missing reasons read as `stop`. */
export function finishReasonOf(stopReason: unknown): string {
  return (typeof stopReason === 'string' && FINISH_REASONS[stopReason]) || 'stop';
}

/**
 * Anthropic usage (input_tokens excludes cache reads and writes) by the one usage rule (src/gateway/providers/usage-rule.ts),
 * uncoerced: the router checks it. `cache_creation` splits the writes into 5-minute and 1-hour ones, which are priced
 * apart. The cache counts may be null (none); input_tokens and output_tokens may not. Undefined when the message
 * carried no token counts.
 */
export function usageOf(usage: unknown): Usage | undefined {
  const u = reportedUsage(usage, ['input_tokens', 'output_tokens']);
  if (!isObject(u)) return u as Usage | undefined;
  const cacheRead = nullableCount(u.cache_read_input_tokens);
  const cacheWrite = nullableCount(u.cache_creation_input_tokens);
  const byDuration = isObject(u.cache_creation) ? u.cache_creation : undefined;
  return translatedUsage({
    prompt: [requiredCount(u.input_tokens), cacheRead, cacheWrite],
    completion: [requiredCount(u.output_tokens)],
    cacheRead,
    cacheWrite,
    ...(byDuration
      ? {
          cacheWriteSplit: {
            ephemeral5m: nullableCount(byDuration.ephemeral_5m_input_tokens),
            ephemeral1h: nullableCount(byDuration.ephemeral_1h_input_tokens),
          },
        }
      : {}),
  });
}

interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Translates a 2xx Messages body; throws UpstreamError('invalid_response') when it is not a message. */
export function fromAnthropicResponse(
  message: JsonObject,
  options: AnthropicResponseOptions,
): { body: JsonObject; usage?: Usage } {
  if (message.type !== 'message' || !Array.isArray(message.content)) {
    throw new UpstreamError('invalid_response', 'provider answered 2xx with a body that is not an Anthropic message');
  }
  let text = '';
  let sawText = false;
  let jsonAnswer = false;
  const toolCalls: ToolCall[] = [];
  for (const block of message.content as Array<Record<string, unknown>>) {
    if (block?.type === 'text' && typeof block.text === 'string') {
      text += block.text;
      sawText = true;
    } else if (block?.type === 'tool_use' && block.name === JSON_RESPONSE_TOOL) {
      // The forced response_format tool: its input is the answer.
      text += JSON.stringify(block.input ?? {});
      sawText = true;
      jsonAnswer = true;
    } else if (block?.type === 'tool_use') {
      toolCalls.push({
        id: String(block.id),
        type: 'function',
        function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
      });
    }
    // thinking, redacted_thinking and server-tool blocks have no OpenAI chat equivalent and are left out.
  }
  const finish =
    jsonAnswer && toolCalls.length === 0 && message.stop_reason === 'tool_use'
      ? 'stop'
      : finishReasonOf(message.stop_reason);
  const usage = usageOf(message.usage);
  const body: JsonObject = {
    id: typeof message.id === 'string' ? message.id : `msg_${options.created}`,
    object: 'chat.completion',
    created: options.created,
    model: typeof message.model === 'string' ? message.model : (options.model ?? 'unknown'),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: sawText || toolCalls.length === 0 ? text : null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finish,
      },
    ],
    // The client's answer keeps OpenAI's shape; the gateway books an estimate when the provider sent no usage.
    usage: usage ?? zeroUsage(),
  };
  return { body, usage };
}
