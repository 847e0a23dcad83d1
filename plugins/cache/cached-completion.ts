// The stored form of an answer: a non-streamed chat completion, and the check that one is worth storing.
import type { ChatChunk, JsonObject, Usage } from '../../src/plugin-api/index.ts';

export interface CachedChoice {
  index: number;
  message: JsonObject & { role?: string; tool_calls?: JsonObject[] };
  logprobs?: unknown;
  finish_reason: string;
}

export interface CachedCompletion {
  id: string;
  created: number;
  model: string;
  system_fingerprint?: string | null;
  choices: CachedChoice[];
  usage?: Usage;
}

/** A complete answer: at least one choice, each with a message and a finish reason that is not an error. */
export function isCacheable(body: unknown): body is CachedCompletion {
  const choices = (body as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0) return false;
  return choices.every((c: { message?: unknown; finish_reason?: unknown } | null) => {
    return (
      typeof c?.message === 'object' &&
      c.message !== null &&
      typeof c.finish_reason === 'string' &&
      c.finish_reason !== 'error'
    );
  });
}

/**
 * The completion as the chunks an OpenAI stream of it would carry, per choice: the role, then the rest of the
 * message in one delta (tool calls get their stream index), then the finish reason; a usage chunk last when asked.
 */
export async function* completionChunks(
  completion: CachedCompletion,
  includeUsage: boolean,
): AsyncGenerator<ChatChunk> {
  const chunk = (choices: unknown[]): ChatChunk => ({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    ...(completion.system_fingerprint ? { system_fingerprint: completion.system_fingerprint } : {}),
    choices,
    ...(includeUsage ? { usage: null } : {}),
  });
  for (const { index, message, logprobs, finish_reason } of completion.choices) {
    const { role = 'assistant', content, tool_calls, ...other } = message;
    yield chunk([
      { index, delta: { role, content: typeof content === 'string' ? '' : null }, logprobs: null, finish_reason: null },
    ]);
    const delta: JsonObject = Object.fromEntries(
      Object.entries(other).filter(([, v]) => v !== null && v !== undefined),
    );
    if (typeof content === 'string' && content !== '') delta.content = content;
    if (Array.isArray(tool_calls) && tool_calls.length > 0)
      delta.tool_calls = tool_calls.map((call, i) => ({ index: i, ...call }));
    if (Object.keys(delta).length > 0) yield chunk([{ index, delta, logprobs: logprobs ?? null, finish_reason: null }]);
    yield chunk([{ index, delta: {}, logprobs: null, finish_reason }]);
  }
  if (includeUsage && completion.usage) yield { ...chunk([]), usage: completion.usage };
}
