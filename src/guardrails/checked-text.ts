// The text guardrails read: prompt messages and embeddings input, answers, and stream deltas.
import type { ChatChunk, JsonObject, RouteName } from '../pipeline/types.ts';

// Separate pieces so a pattern never joins the end of one message to the start of the next.
const SEPARATOR = '\n\n';

/** A message's `content`: a string, or content parts of which the text parts count. */
function contentText(content: unknown, out: string[]): void {
  if (typeof content === 'string') out.push(content);
  else if (Array.isArray(content)) {
    for (const part of content) if (typeof part?.text === 'string' && part.type === 'text') out.push(part.text);
  }
}

export function requestText(route: RouteName, body: JsonObject | undefined): string {
  const out: string[] = [];
  if (route === 'chat' && Array.isArray(body?.messages)) {
    for (const m of body.messages) contentText((m as JsonObject | null)?.content, out);
  } else if (route === 'embeddings') {
    // Token-id arrays carry no text to check.
    for (const item of [body?.input].flat()) if (typeof item === 'string') out.push(item);
  }
  return out.join(SEPARATOR);
}

/** The assistant messages of a non-streamed chat completion. */
export function responseText(body: unknown): string {
  const out: string[] = [];
  const choices = (body as { choices?: unknown } | null)?.choices;
  if (Array.isArray(choices)) for (const c of choices) contentText(c?.message?.content, out);
  return out.join(SEPARATOR);
}

/** The content a stream chunk adds (all choices, in order). */
export function chunkText(chunk: ChatChunk): string {
  let text = '';
  for (const c of chunk.choices ?? []) {
    const content = (c as { delta?: { content?: unknown } } | null)?.delta?.content;
    if (typeof content === 'string') text += content;
  }
  return text;
}
