// Vertex Gemini `GenerateContentResponse` → OpenAI chat completion (reference 1c; choices documented in
// docs/providers/vertex.md). Also the pieces the stream decoder shares: finish reasons, usage, tool-call ids.
import { randomBytes } from 'node:crypto';
import type { JsonObject, Usage } from '../../openai/wire-types.ts';
import { normalizedUsage } from '../usage-rule.ts';
import { isObject } from '../../validation/json-object.ts';

const CONTENT_FILTER_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'LANGUAGE',
]);

/** OpenAI finish_reason for a Gemini finishReason; calls to functions make a normal stop `tool_calls`. */
export function finishReason(reason: string, hasToolCalls: boolean): string {
  if (reason === 'MAX_TOKENS') return 'length';
  if (CONTENT_FILTER_REASONS.has(reason)) return 'content_filter';
  // STOP, OTHER, MALFORMED_FUNCTION_CALL, FINISH_REASON_UNSPECIFIED and reasons added later end normally.
  return hasToolCalls ? 'tool_calls' : 'stop';
}

/** Gemini counts: prompt includes cached content, candidates exclude thoughts (usage rule, usage-rule.ts). */
export function geminiUsage(meta: unknown): Usage | undefined {
  // Stream events may carry usageMetadata with only `trafficType`: no counts, nothing to replace earlier ones with.
  if (!isObject(meta) || (typeof meta.promptTokenCount !== 'number' && typeof meta.totalTokenCount !== 'number'))
    return undefined;
  const n = (key: string) => (typeof meta[key] === 'number' ? (meta[key] as number) : 0);
  const cached = n('cachedContentTokenCount');
  return normalizedUsage({
    input: n('promptTokenCount') - cached + n('toolUsePromptTokenCount'),
    cacheRead: cached,
    output: n('candidatesTokenCount'),
    reasoning: n('thoughtsTokenCount'),
  });
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Gemini function calls carry no id on Vertex v1, so the gateway mints one per call. */
export function mintToolCallId(): string {
  return `call_${Array.from(randomBytes(24), (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('')}`;
}

export function completionId(response: JsonObject): string {
  return `chatcmpl-${typeof response.responseId === 'string' ? response.responseId : mintToolCallId().slice(5)}`;
}

export interface GeminiPartsView {
  text: string;
  toolCalls: JsonObject[];
}

/** Text parts joined (thought summaries left out) and function calls as OpenAI tool calls. */
export function readParts(content: unknown): GeminiPartsView {
  const parts = isObject(content) && Array.isArray(content.parts) ? content.parts.filter(isObject) : [];
  let text = '';
  const toolCalls: JsonObject[] = [];
  for (const part of parts) {
    if (typeof part.text === 'string' && part.thought !== true) text += part.text;
    if (isObject(part.functionCall)) {
      toolCalls.push({
        id: mintToolCallId(),
        type: 'function',
        function: {
          name: String(part.functionCall.name ?? ''),
          arguments: JSON.stringify(part.functionCall.args ?? {}),
        },
      });
    }
  }
  return { text, toolCalls };
}

export interface ResponseContext {
  /** The deployment's model, used when the response names none. */
  model: string;
  /** Seconds since the epoch. */
  created: number;
}

export function geminiResponse(response: JsonObject, ctx: ResponseContext): { body: JsonObject; usage?: Usage } {
  const candidates = Array.isArray(response.candidates) ? response.candidates.filter(isObject) : [];
  const blocked = isObject(response.promptFeedback) && typeof response.promptFeedback.blockReason === 'string';
  const choices =
    candidates.length === 0 && blocked
      ? // A blocked prompt is a 200 with no content, like OpenAI's own content filter on output.
        [
          {
            index: 0,
            message: { role: 'assistant', content: '', refusal: null },
            logprobs: null,
            finish_reason: 'content_filter',
          },
        ]
      : candidates.map((c, i) => {
          const { text, toolCalls } = readParts(c.content);
          const message: JsonObject = {
            role: 'assistant',
            content: text === '' && toolCalls.length > 0 ? null : text,
            refusal: null,
          };
          if (toolCalls.length > 0) message.tool_calls = toolCalls;
          return {
            index: typeof c.index === 'number' ? c.index : i,
            message,
            logprobs: null,
            finish_reason: finishReason(
              typeof c.finishReason === 'string' ? c.finishReason : 'STOP',
              toolCalls.length > 0,
            ),
          };
        });
  const usage = geminiUsage(response.usageMetadata);
  const body: JsonObject = {
    id: completionId(response),
    object: 'chat.completion',
    created: ctx.created,
    model: typeof response.modelVersion === 'string' ? response.modelVersion : ctx.model,
    choices,
    usage: usage ?? normalizedUsage({ input: 0, output: 0 }),
  };
  return { body, usage };
}
