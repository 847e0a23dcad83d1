// Gemini `streamGenerateContent?alt=sse` events (each a whole GenerateContentResponse) → OpenAI chunks, with the
// per-response state: role sent, tool-call indices 0..n-1 per choice, finish seen, the last usageMetadata.
import type { ChatChunk, JsonObject, Usage } from '../../../platform/openai/wire-types.ts';
import { UpstreamError } from '../../../plugin-api/errors.ts';
import { vertexStreamError } from './error-mapping.ts';
import { completionId, finishReason, geminiUsage, readParts, type ResponseContext } from './gemini-response.ts';
import { isObject } from '../../../platform/validation/json-object.ts';

interface ChoiceState {
  toolCalls: number;
  finished: boolean;
}

export interface GeminiStreamDecoder {
  /** The chunks one event turns into; throws UpstreamError for an in-stream error. */
  push(event: unknown): ChatChunk[];
  /** The trailing usage chunk; throws when the stream ended before a finish reason. */
  end(): ChatChunk[];
}

export function geminiStreamDecoder(ctx: ResponseContext): GeminiStreamDecoder {
  let id: string | undefined;
  let model = ctx.model;
  let usage: Usage | undefined;
  const choices = new Map<number, ChoiceState>();

  const chunk = (choice: JsonObject[], extra: JsonObject = {}): ChatChunk => ({
    id,
    object: 'chat.completion.chunk',
    created: ctx.created,
    model,
    choices: choice,
    ...extra,
  });
  const delta = (index: number, d: JsonObject, finish: string | null = null) => ({
    index,
    delta: d,
    logprobs: null,
    finish_reason: finish,
  });

  /** The choice's state; its first chunk carries the assistant role. */
  const open = (index: number, out: ChatChunk[]): ChoiceState => {
    let state = choices.get(index);
    if (!state) {
      state = { toolCalls: 0, finished: false };
      choices.set(index, state);
      out.push(chunk([delta(index, { role: 'assistant', content: '' })]));
    }
    return state;
  };

  return {
    push(event) {
      const error = vertexStreamError(event);
      if (error) throw error;
      if (!isObject(event))
        throw new UpstreamError('invalid_response', 'provider sent a stream event that is not an object');
      id ??= completionId(event);
      if (typeof event.modelVersion === 'string') model = event.modelVersion;
      usage = geminiUsage(event.usageMetadata) ?? usage;
      const out: ChatChunk[] = [];
      const candidates = Array.isArray(event.candidates) ? event.candidates.filter(isObject) : [];
      if (
        candidates.length === 0 &&
        isObject(event.promptFeedback) &&
        typeof event.promptFeedback.blockReason === 'string'
      ) {
        // Prompt blocked: sent once, in the first event, with no candidates.
        open(0, out).finished = true;
        out.push(chunk([delta(0, {}, 'content_filter')]));
        return out;
      }
      candidates.forEach((c, i) => {
        const index = typeof c.index === 'number' ? c.index : i;
        const state = open(index, out);
        const { text, toolCalls } = readParts(c.content);
        if (text !== '') out.push(chunk([delta(index, { content: text })]));
        if (toolCalls.length > 0) {
          // Gemini sends each call whole: one delta per call with its full arguments.
          out.push(
            chunk([delta(index, { tool_calls: toolCalls.map((call) => ({ index: state.toolCalls++, ...call })) })]),
          );
        }
        if (typeof c.finishReason === 'string' && !state.finished) {
          state.finished = true;
          out.push(chunk([delta(index, {}, finishReason(c.finishReason, state.toolCalls > 0))]));
        }
      });
      return out;
    },
    end() {
      if (choices.size === 0 || [...choices.values()].some((s) => !s.finished)) {
        throw new UpstreamError('connect', 'provider closed the stream before it finished');
      }
      return usage ? [chunk([], { usage })] : [];
    },
  };
}
