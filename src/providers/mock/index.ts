// Built-in mock provider: deterministic answers with realistic usage, streams and embeddings, no key, no network.
import { createHash, randomUUID } from 'node:crypto';
import type { ChatChunk, JsonObject, Usage } from '../../openai/wire-types.ts';
import { estimateChatPromptTokens, estimateEmbeddingTokens, outputAllowance } from '../../pricing/token-estimate.ts';
import type { ProviderAdapter, ProviderCall } from '../types.ts';
import { UpstreamError } from '../upstream-error.ts';
import type { Clock } from '../../pipeline/clock.ts';

function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown };
    if (m?.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      return m.content
        .map((p) => (typeof (p as { text?: unknown })?.text === 'string' ? (p as { text: string }).text : ''))
        .join(' ');
    }
  }
  return '';
}

interface MockAnswer {
  words: string[];
  finishReason: 'stop' | 'length';
  usage: Usage;
}

/** The answer is a function of the model and the last user message only, one word per completion token. */
function answer(call: ProviderCall): MockAnswer {
  const model = call.deployment.model ?? 'mock';
  const said = lastUserText(call.body.messages).replace(/\s+/g, ' ').trim().slice(0, 200);
  const all = `This is ${model}, the svc mock provider. You said: "${said}"`.split(' ');
  const allowance = outputAllowance(call.body);
  const words = all.slice(0, allowance);
  const prompt = estimateChatPromptTokens(call.body.messages);
  return {
    words,
    finishReason: words.length < all.length ? 'length' : 'stop',
    usage: { prompt_tokens: prompt, completion_tokens: words.length, total_tokens: prompt + words.length },
  };
}

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
      const a = answer(call);
      return completionChunks(chunkBase(call, created()), a);
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
        message: { role: 'assistant', content: a.words.join(' '), refusal: null },
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

/** A role chunk, one chunk per word, the finish reason, then usage: the shape OpenAI streams with include_usage. */
async function* completionChunks(base: ReturnType<typeof chunkBase>, a: MockAnswer): AsyncGenerator<ChatChunk> {
  yield {
    ...base,
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    usage: null,
  };
  for (let i = 0; i < a.words.length; i++) {
    const content = i === 0 ? a.words[i] : ` ${a.words[i]}`;
    yield {
      ...base,
      choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }],
      usage: null,
    };
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
