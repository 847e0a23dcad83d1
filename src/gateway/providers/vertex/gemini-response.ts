// Vertex Gemini `GenerateContentResponse` → OpenAI chat completion (choices documented in
// docs/providers/vertex.md). Also the pieces the stream decoder shares: finish reasons, usage, tool-call ids.
import { randomBytes } from 'node:crypto';
import type { JsonObject, Usage } from '../../../platform/openai/wire-types.ts';
import { reportedUsage, translatedUsage, zeroUsage } from '../usage-rule.ts';
import { isObject } from '../../../platform/validation/json-object.ts';

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

const GEMINI_COUNTS = [
  'promptTokenCount',
  'candidatesTokenCount',
  'totalTokenCount',
  'cachedContentTokenCount',
  'thoughtsTokenCount',
  'toolUsePromptTokenCount',
];

/**
 * Gemini counts by the usage rule (usage-rule.ts), uncoerced: the router checks them. The prompt includes cached
 * content, the candidates exclude thoughts. Gemini leaves zero counts out, so a count left out is 0; it never sends
 * null. Undefined when the metadata carries no counts: stream events may carry usageMetadata with only
 * `trafficType`, nothing to replace earlier counts with.
 */
export function geminiUsage(meta: unknown): Usage | undefined {
  const m = reportedUsage(meta, GEMINI_COUNTS);
  if (!isObject(m)) return m as Usage | undefined;
  return translatedUsage({
    prompt: [m.promptTokenCount, m.toolUsePromptTokenCount],
    completion: [m.candidatesTokenCount, m.thoughtsTokenCount],
    cacheRead: m.cachedContentTokenCount,
    reasoning: m.thoughtsTokenCount,
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
    usage: usage ?? zeroUsage(),
  };
  return { body, usage };
}
