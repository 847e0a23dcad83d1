// Anthropic Messages SSE events → OpenAI chat.completion.chunk objects, with per-response state (tool-call indices,
// usage). Stays on the main thread (ARCHITECTURE.md section 4); pure apart from that state, so Vertex reuses it.
import { createParser } from 'eventsource-parser';
import type { ChatChunk } from '../../pipeline/types.ts';
import { UpstreamError } from '../upstream-error.ts';
import { anthropicStreamError } from './error-mapping.ts';
import { JSON_RESPONSE_TOOL } from './request-translation.ts';
import { finishReasonOf, usageOf } from './response-translation.ts';

export interface AnthropicStreamOptions {
  /** Unix seconds for `created` on every chunk. */
  created: number;
  /** Model name until `message_start` names one. */
  model?: string;
}

export interface AnthropicStreamDecoder {
  /** One parsed event (`data:` JSON, its `type` names the event); returns the chunks it yields. Throws UpstreamError on an `error` event. */
  push(event: unknown): ChatChunk[];
  /** True once `message_stop` arrived. */
  readonly done: boolean;
}

interface ToolBlock {
  /** OpenAI tool-call index: a 0-based counter of tool blocks, not the Anthropic block index. */
  index: number;
  /** The forced response_format tool: its input streams out as content. */
  json: boolean;
  sentArguments: boolean;
}

type Event = Record<string, any>;

export function createAnthropicStreamDecoder(options: AnthropicStreamOptions): AnthropicStreamDecoder {
  let id = `msg_${options.created}`;
  let model = options.model ?? 'unknown';
  let started = false;
  let done = false;
  let stopReason: unknown;
  let jsonAnswer = false;
  let toolCount = 0;
  const tools = new Map<number, ToolBlock>();
  const usage: Record<string, unknown> = {};

  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): ChatChunk => ({
    id,
    object: 'chat.completion.chunk',
    created: options.created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const toolDelta = (tool: ToolBlock, fn: Record<string, unknown>, head?: { id: string }) =>
    chunk({ tool_calls: [{ index: tool.index, ...(head ? { id: head.id, type: 'function' } : {}), function: fn }] });
  // Usage fields are cumulative: a later event's value replaces an earlier one.
  const takeUsage = (u: unknown) => {
    if (typeof u !== 'object' || u === null) return;
    for (const [k, v] of Object.entries(u)) if (typeof v === 'number') usage[k] = v;
  };

  function push(event: unknown): ChatChunk[] {
    if (done || typeof event !== 'object' || event === null) return [];
    const e = event as Event;
    switch (e.type) {
      case 'message_start': {
        const message = (e.message ?? {}) as Event;
        if (typeof message.id === 'string') id = message.id;
        if (typeof message.model === 'string') model = message.model;
        takeUsage(message.usage);
        started = true;
        return [chunk({ role: 'assistant', content: '' })];
      }
      case 'content_block_start': {
        const block = (e.content_block ?? {}) as Event;
        if (block.type === 'tool_use' && block.name === JSON_RESPONSE_TOOL) {
          jsonAnswer = true;
          tools.set(e.index, { index: -1, json: true, sentArguments: false });
          return [];
        }
        if (block.type === 'tool_use') {
          const tool: ToolBlock = { index: toolCount++, json: false, sentArguments: false };
          tools.set(e.index, tool);
          return [toolDelta(tool, { name: String(block.name), arguments: '' }, { id: String(block.id) })];
        }
        if (block.type === 'text' && typeof block.text === 'string' && block.text !== '')
          return [chunk({ content: block.text })];
        return [];
      }
      case 'content_block_delta': {
        const delta = (e.delta ?? {}) as Event;
        if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '')
          return [chunk({ content: delta.text })];
        if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string' && delta.partial_json !== '') {
          const tool = tools.get(e.index);
          if (!tool) return [];
          tool.sentArguments = true;
          return [
            tool.json ? chunk({ content: delta.partial_json }) : toolDelta(tool, { arguments: delta.partial_json }),
          ];
        }
        // thinking_delta, signature_delta, citations_delta: no OpenAI chat equivalent.
        return [];
      }
      case 'content_block_stop': {
        const tool = tools.get(e.index);
        // A tool block without input deltas still owes the client parseable arguments.
        if (!tool || tool.sentArguments) return [];
        tool.sentArguments = true;
        return [tool.json ? chunk({ content: '{}' }) : toolDelta(tool, { arguments: '{}' })];
      }
      case 'message_delta':
        if (e.delta?.stop_reason !== undefined && e.delta.stop_reason !== null) stopReason = e.delta.stop_reason;
        takeUsage(e.usage);
        return [];
      case 'message_stop': {
        if (!started) throw new UpstreamError('invalid_response', 'provider stream stopped before message_start');
        done = true;
        const finish = jsonAnswer && toolCount === 0 && stopReason === 'tool_use' ? 'stop' : finishReasonOf(stopReason);
        return [
          chunk({}, finish),
          { id, object: 'chat.completion.chunk', created: options.created, model, choices: [], usage: usageOf(usage) },
        ];
      }
      case 'error':
        throw anthropicStreamError(e);
      default:
        // ping, and event types Anthropic may add later.
        return [];
    }
  }

  return {
    push,
    get done() {
      return done;
    },
  };
}

/**
 * Decodes an Anthropic SSE byte stream into OpenAI chunks. Throws UpstreamError on an in-stream `error` event, on
 * data that is not JSON, and when the stream ends before `message_stop`. The caller owns the body (drain, destroy).
 */
export async function* decodeAnthropicSse(
  body: AsyncIterable<Uint8Array | string>,
  options: AnthropicStreamOptions,
): AsyncGenerator<ChatChunk> {
  const decoder = createAnthropicStreamDecoder(options);
  const text = new TextDecoder();
  const pending: string[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event.data) });
  for await (const piece of body) {
    parser.feed(typeof piece === 'string' ? piece : text.decode(piece, { stream: true }));
    for (const data of pending.splice(0)) {
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch {
        throw new UpstreamError('invalid_response', 'provider sent a stream event that is not JSON');
      }
      yield* decoder.push(event);
      if (decoder.done) return;
    }
  }
  throw new UpstreamError('connect', 'provider closed the stream before message_stop');
}
