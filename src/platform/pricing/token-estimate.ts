// Cheap token estimates for admission (rate limits, budget reservations, stream cost): ~4 characters a token.

/** Tokens of this many characters of text. */
export function estimateCharTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

export function estimateTextTokens(text: string): number {
  return estimateCharTokens(text.length);
}

const textLength = (v: unknown) => (typeof v === 'string' ? v.length : 0);

/**
 * Characters of answer text in an assistant message or a stream's delta: content, refusal, reasoning, and tool-call
 * names and arguments. Output tokens are estimated from them when the provider's count is missing.
 */
function answerChars(message: unknown): number {
  if (!message || typeof message !== 'object') return 0;
  const m = message as { content?: unknown; refusal?: unknown; reasoning_content?: unknown; tool_calls?: unknown };
  let chars = textLength(m.content) + textLength(m.refusal) + textLength(m.reasoning_content);
  if (Array.isArray(m.tool_calls))
    for (const call of m.tool_calls) {
      const f = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
      chars += textLength(f?.name) + textLength(f?.arguments);
    }
  return chars;
}

/** Characters of answer text over all `choices`: their messages (a JSON answer) or their deltas (a stream's chunk). */
export function choicesAnswerChars(choices: unknown, part: 'message' | 'delta'): number {
  if (!Array.isArray(choices)) return 0;
  let chars = 0;
  for (const choice of choices) chars += answerChars((choice as Record<string, unknown> | null)?.[part]);
  return chars;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string')
      text += (part as { text: string }).text;
  }
  return text;
}

/** Prompt tokens of a chat request: message text plus a few tokens of framing per message. */
export function estimateChatPromptTokens(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let tokens = 3;
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const msg = m as { content?: unknown; name?: unknown; tool_calls?: unknown };
    tokens += 4 + estimateTextTokens(contentText(msg.content));
    if (typeof msg.name === 'string') tokens += estimateTextTokens(msg.name);
    if (msg.tool_calls !== undefined) tokens += estimateTextTokens(JSON.stringify(msg.tool_calls));
  }
  return tokens;
}

/** Input tokens of an embeddings request (strings, or token arrays counted as they are). */
export function estimateEmbeddingTokens(input: unknown): number {
  if (typeof input === 'string') return estimateTextTokens(input);
  if (!Array.isArray(input)) return 0;
  let tokens = 0;
  for (const item of input) {
    if (typeof item === 'string') tokens += estimateTextTokens(item);
    else if (typeof item === 'number') tokens += 1;
    else if (Array.isArray(item)) tokens += item.length;
  }
  return tokens;
}

/** Output allowance for reservations: max_completion_tokens, else max_tokens, else 4096 (docs/plugins.md). */
export function outputAllowance(body: Record<string, unknown>): number {
  const value = body.max_completion_tokens ?? body.max_tokens;
  return typeof value === 'number' && value > 0 ? value : 4096;
}
