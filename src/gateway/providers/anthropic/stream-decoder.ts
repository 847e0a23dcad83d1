// Anthropic Messages SSE events → OpenAI chat.completion.chunk objects, with per-response state (tool-call indices,
// usage). Stays on the main thread (docs/architecture.md "Off the request path"); pure apart from that state, so Vertex
// reuses it.
import { createParser } from 'eventsource-parser';
import type { ChatChunk } from '../../../platform/openai/wire-types.ts';
import { isObject } from '../../../platform/validation/json-object.ts';
import { UpstreamError } from '../../../plugin-api/errors.ts';
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
  return new AnthropicChunks(options);
}

/** The decoder's per-response state, with one method per Anthropic event type. */
class AnthropicChunks implements AnthropicStreamDecoder {
  readonly #created: number;
  #id: string;
  #model: string;
  #started = false;
  #done = false;
  #stopReason: unknown;
  #jsonAnswer = false;
  #toolCount = 0;
  readonly #tools = new Map<number, ToolBlock>();
  /** The usage fields the events carried, merged; or usage that was not an object, as it came. */
  #usage: unknown;

  constructor(options: AnthropicStreamOptions) {
    this.#created = options.created;
    this.#id = `msg_${options.created}`;
    this.#model = options.model ?? 'unknown';
  }

  get done(): boolean {
    return this.#done;
  }

  push(event: unknown): ChatChunk[] {
    if (this.#done || typeof event !== 'object' || event === null) return [];
    const e = event as Event;
    switch (e.type) {
      case 'message_start':
        return this.#messageStart((e.message ?? {}) as Event);
      case 'content_block_start':
        return this.#blockStart(e.index, (e.content_block ?? {}) as Event);
      case 'content_block_delta':
        return this.#blockDelta(e.index, (e.delta ?? {}) as Event);
      case 'content_block_stop':
        return this.#blockStop(e.index);
      case 'message_delta':
        if (e.delta?.stop_reason !== undefined && e.delta.stop_reason !== null) this.#stopReason = e.delta.stop_reason;
        this.#takeUsage(e.usage);
        return [];
      case 'message_stop':
        return this.#messageStop();
      case 'error':
        throw anthropicStreamError(e);
      default:
        // ping, and event types Anthropic may add later.
        return [];
    }
  }

  #messageStart(message: Event): ChatChunk[] {
    if (typeof message.id === 'string') this.#id = message.id;
    if (typeof message.model === 'string') this.#model = message.model;
    this.#takeUsage(message.usage);
    this.#started = true;
    return [this.#chunk({ role: 'assistant', content: '' })];
  }

  #blockStart(index: number, block: Event): ChatChunk[] {
    if (block.type === 'tool_use' && block.name === JSON_RESPONSE_TOOL) {
      this.#jsonAnswer = true;
      this.#tools.set(index, { index: -1, json: true, sentArguments: false });
      return [];
    }
    if (block.type === 'tool_use') {
      const tool: ToolBlock = { index: this.#toolCount++, json: false, sentArguments: false };
      this.#tools.set(index, tool);
      return [this.#toolDelta(tool, { name: String(block.name), arguments: '' }, { id: String(block.id) })];
    }
    if (block.type === 'text' && typeof block.text === 'string' && block.text !== '')
      return [this.#chunk({ content: block.text })];
    return [];
  }

  #blockDelta(index: number, delta: Event): ChatChunk[] {
    if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '')
      return [this.#chunk({ content: delta.text })];
    if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string' && delta.partial_json !== '') {
      const tool = this.#tools.get(index);
      if (!tool) return [];
      tool.sentArguments = true;
      return [
        tool.json
          ? this.#chunk({ content: delta.partial_json })
          : this.#toolDelta(tool, { arguments: delta.partial_json }),
      ];
    }
    // thinking_delta, signature_delta, citations_delta: no OpenAI chat equivalent.
    return [];
  }

  #blockStop(index: number): ChatChunk[] {
    const tool = this.#tools.get(index);
    // A tool block without input deltas still owes the client parseable arguments.
    if (!tool || tool.sentArguments) return [];
    tool.sentArguments = true;
    return [tool.json ? this.#chunk({ content: '{}' }) : this.#toolDelta(tool, { arguments: '{}' })];
  }

  #messageStop(): ChatChunk[] {
    if (!this.#started) throw new UpstreamError('invalid_response', 'provider stream stopped before message_start');
    this.#done = true;
    const finish =
      this.#jsonAnswer && this.#toolCount === 0 && this.#stopReason === 'tool_use'
        ? 'stop'
        : finishReasonOf(this.#stopReason);
    const usage = usageOf(this.#usage);
    // Without counts there is no usage chunk: the gateway estimates the usage of a stream that ended without one.
    if (!usage) return [this.#chunk({}, finish)];
    return [
      this.#chunk({}, finish),
      {
        id: this.#id,
        object: 'chat.completion.chunk',
        created: this.#created,
        model: this.#model,
        choices: [],
        usage,
      },
    ];
  }

  #chunk(delta: Record<string, unknown>, finishReason: string | null = null): ChatChunk {
    return {
      id: this.#id,
      object: 'chat.completion.chunk',
      created: this.#created,
      model: this.#model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
  }

  #toolDelta(tool: ToolBlock, fn: Record<string, unknown>, head?: { id: string }): ChatChunk {
    return this.#chunk({
      tool_calls: [{ index: tool.index, ...(head ? { id: head.id, type: 'function' } : {}), function: fn }],
    });
  }

  /**
   * Usage fields are cumulative: a later event's value replaces an earlier one (counts, and the cache-write split); a
   * null field says nothing new. Values are kept as they came, for the router to check.
   */
  #takeUsage(u: unknown): void {
    if (u === undefined || u === null) return;
    if (!isObject(u)) {
      this.#usage = u;
      return;
    }
    const merged = isObject(this.#usage) ? this.#usage : {};
    for (const [k, v] of Object.entries(u)) if (v !== null) merged[k] = v;
    this.#usage = merged;
  }
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
