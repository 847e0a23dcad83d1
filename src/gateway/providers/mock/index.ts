// Built-in mock provider: deterministic answers (text, tool calls, JSON) with realistic usage, streams and
// embeddings, no key, no network. What it says is in answer.ts.
import { createHash, randomUUID } from 'node:crypto';
import type { ChatChunk, JsonObject, Usage } from '../../../platform/openai/wire-types.ts';
import { estimateEmbeddingTokens } from '../../../platform/pricing/token-estimate.ts';
import { UpstreamError } from '../../../plugin-api/errors.ts';
import type { Clock } from '../../../platform/clock.ts';
import { mockAnswer, type MockAnswer } from './answer.ts';
import type { ProviderAdapter, ProviderCall } from '../../../plugin-api/services.ts';

/** Unit vector seeded by the text: the same text always embeds the same way. */
function embed(text: string, dimensions: number): Float32Array {
  const out = new Float32Array(dimensions);
  let seed = createHash('sha256').update(text).digest();
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    if (i % 16 === 0 && i > 0) seed = createHash('sha256').update(seed).digest();
    const v = seed.readUInt16LE((i % 16) * 2) / 32767.5 - 1;
    out[i] = v;
    norm += v * v;
  }
  const scale = 1 / Math.sqrt(norm || 1);
  for (let i = 0; i < dimensions; i++) out[i] *= scale;
  return out;
}

const answer = (call: ProviderCall) => mockAnswer(call.deployment.model ?? 'mock', call.body);

export function mockProvider(clock: Clock): ProviderAdapter {
  const pause = async (call: ProviderCall) => {
    const ms = call.deployment.mock?.latency_ms ?? 0;
    if (ms <= 0) return;
    // Like a real provider that answers too late: the attempt times out after timeoutMs.
    if (ms >= call.timeoutMs) {
      await clock.sleep(call.timeoutMs, call.signal);
      throw new UpstreamError('timeout', 'provider did not answer in time');
    }
    await clock.sleep(ms, call.signal);
  };
  const created = () => Math.floor(clock.now() / 1000);
  return {
    name: 'mock',
    supportsEmbeddings: true,
    unavailableReason: () => undefined,
    async chat(call) {
      await pause(call);
      return completion(call, answer(call), created());
    },
    async chatStream(call) {
      await pause(call);
      return completionChunks(chunkBase(call, created()), answer(call));
    },
    async embeddings(call) {
      await pause(call);
      return embeddings(call);
    },
  };
}

function completion(call: ProviderCall, a: MockAnswer, created: number): { body: JsonObject; usage: Usage } {
  const body: JsonObject = {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created,
    model: call.deployment.model,
    choices: [
      {
        index: 0,
        message: a.toolCall
          ? { role: 'assistant', content: null, tool_calls: [toolCall(a.toolCall, a.pieces.join(''))], refusal: null }
          : { role: 'assistant', content: a.pieces.join(''), refusal: null },
        logprobs: null,
        finish_reason: a.finishReason,
      },
    ],
    usage: a.usage,
    system_fingerprint: 'svc-mock',
  };
  return { body, usage: a.usage };
}

/** What every chunk of one stream shares. */
function chunkBase(call: ProviderCall, created: number) {
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion.chunk',
    created,
    model: call.deployment.model,
    system_fingerprint: 'svc-mock',
  };
}

function toolCall(call: NonNullable<MockAnswer['toolCall']>, args: string) {
  return { id: call.id, type: 'function', function: { name: call.name, arguments: args } };
}

/**
 * A role chunk, one chunk per piece, the finish reason, then usage: the shape OpenAI streams with include_usage.
 * A tool call opens with its index, id, type and name (empty arguments); the arguments follow piece by piece.
 */
async function* completionChunks(base: ReturnType<typeof chunkBase>, a: MockAnswer): AsyncGenerator<ChatChunk> {
  const opening = a.toolCall
    ? { role: 'assistant', content: null, tool_calls: [{ index: 0, ...toolCall(a.toolCall, '') }], refusal: null }
    : { role: 'assistant', content: '' };
  yield { ...base, choices: [{ index: 0, delta: opening, logprobs: null, finish_reason: null }], usage: null };
  for (const piece of a.pieces) {
    const delta = a.toolCall ? { tool_calls: [{ index: 0, function: { arguments: piece } }] } : { content: piece };
    yield { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: null }], usage: null };
  }
  yield {
    ...base,
    choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: a.finishReason }],
    usage: null,
  };
  yield { ...base, choices: [], usage: a.usage };
}

function embeddings(call: ProviderCall): { body: JsonObject; usage: Usage } {
  const input = call.body.input;
  const items: unknown[] =
    typeof input === 'string' || (Array.isArray(input) && typeof input[0] === 'number')
      ? [input]
      : (input as unknown[]);
  const dimensions =
    typeof call.body.dimensions === 'number' ? call.body.dimensions : (call.deployment.mock?.dimensions ?? 256);
  const base64 = call.body.encoding_format === 'base64';
  const data = items.map((item, index) => {
    const vector = embed(typeof item === 'string' ? item : JSON.stringify(item), dimensions);
    return {
      object: 'embedding',
      index,
      embedding: base64
        ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64')
        : Array.from(vector),
    };
  });
  const tokens = estimateEmbeddingTokens(input);
  const usage: Usage = { prompt_tokens: tokens, completion_tokens: 0, total_tokens: tokens };
  return {
    body: {
      object: 'list',
      data,
      model: call.deployment.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
    usage,
  };
}
