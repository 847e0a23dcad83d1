// ConverseStream events → OpenAI chat.completion.chunk objects, with per-response state: the role on the first
// chunk, tool-call indices 0..n-1 (not Bedrock's content block index), usage from `metadata` after `messageStop`.
import type { ChatChunk } from '../../../platform/openai/wire-types.ts';
import { isObject } from '../../../platform/validation/json-object.ts';
import { UpstreamError } from '../../../plugin-api/errors.ts';
import type { StreamEvent } from './event-stream-decoder.ts';
import { bedrockUsage, finishReason, type ResponseMeta } from './response-translation.ts';

export async function* converseStreamChunks(
  events: AsyncIterable<StreamEvent>,
  meta: ResponseMeta,
): AsyncGenerator<ChatChunk> {
  const base = { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): ChatChunk => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  });
  const toolIndex = new Map<number, number>();
  let started = false;
  let stopped = false;
  for await (const { type, payload } of events) {
    if (!started && type !== 'metadata') {
      started = true;
      yield chunk({ role: 'assistant', content: '' });
    }
    switch (type) {
      case 'contentBlockStart': {
        const start = isObject(payload.start) ? payload.start : {};
        if (isObject(start.toolUse)) {
          const index = toolIndex.size;
          toolIndex.set(Number(payload.contentBlockIndex), index);
          const { toolUseId, name } = start.toolUse;
          yield chunk({
            tool_calls: [
              {
                index,
                id: String(toolUseId ?? ''),
                type: 'function',
                function: { name: String(name ?? ''), arguments: '' },
              },
            ],
          });
        }
        break;
      }
      case 'contentBlockDelta': {
        const delta = isObject(payload.delta) ? payload.delta : {};
        if (typeof delta.text === 'string') {
          if (delta.text !== '') yield chunk({ content: delta.text });
        } else if (isObject(delta.toolUse)) {
          const index = toolIndex.get(Number(payload.contentBlockIndex));
          if (index === undefined)
            throw new UpstreamError('invalid_response', 'Bedrock sent tool input for a block it never started');
          const input = typeof delta.toolUse.input === 'string' ? delta.toolUse.input : '';
          if (input !== '') yield chunk({ tool_calls: [{ index, function: { arguments: input } }] });
        }
        // reasoningContent deltas are not part of the OpenAI chunk shape and are dropped.
        break;
      }
      case 'messageStop':
        stopped = true;
        yield chunk({}, finishReason(payload.stopReason));
        break;
      case 'metadata': {
        // Bedrock sends usage after messageStop: it becomes the trailing usage chunk, and the stream is over.
        const usage = bedrockUsage(payload.usage);
        if (usage) yield { ...base, choices: [], usage };
        if (stopped) return;
        break;
      }
      default:
        // messageStart (handled above), contentBlockStop and event types added later carry nothing to forward.
        break;
    }
  }
  if (!stopped) throw new UpstreamError('connect', 'Bedrock closed the stream before messageStop');
}
