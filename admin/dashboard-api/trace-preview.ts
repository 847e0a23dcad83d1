// The one-line previews of a trace's input and output on the trace list: for chat messages the last user message (of
// the input) and the assistant's answer (of the output), else the value's text; whitespace folded, cut at
// PREVIEW_CHARS, so a page of traces stays small whatever they carry.
import { isMessage, messagesOf, type Message } from './chat-messages.ts';

/** A preview is cut to this many characters (an ellipsis marks the cut). */
export const PREVIEW_CHARS = 240;

/** The chat messages a value holds, OpenAI's `{choices: [{message}]}` (an answer as the API sent it) too. */
function chatOf(v: unknown): Message[] | undefined {
  const choices = (v as { choices?: { message?: unknown }[] } | null)?.choices;
  return Array.isArray(choices) ? messagesOf(choices.map((c) => c?.message).filter(isMessage)) : messagesOf(v);
}

/** A message's content: a string, or the text parts of a content-part list, else JSON. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.some((p) => typeof p?.text === 'string'))
    return content.flatMap((p) => (typeof p?.text === 'string' ? [p.text as string] : [])).join(' ');
  return content === null || content === undefined ? '' : JSON.stringify(content);
}

function oneLine(text: string): string {
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded.length > PREVIEW_CHARS ? `${folded.slice(0, PREVIEW_CHARS - 1)}…` : folded;
}

/** The preview of a trace's input (`in`) or output (`out`); null when it has none. */
export function tracePreview(value: unknown, side: 'in' | 'out'): string | null {
  if (value === null || value === undefined) return null;
  const messages = chatOf(value);
  if (!messages) return oneLine(typeof value === 'string' ? value : JSON.stringify(value));
  const wanted = side === 'in' ? 'user' : 'assistant';
  const chosen = messages.findLast((m) => m.role === wanted) ?? messages.at(-1)!;
  return oneLine(contentText(chosen.content));
}
