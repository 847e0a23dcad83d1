// A trace's input and output as chat bubbles: chat messages (`[{role, content}]`, `{messages: […]}`, `{role, content}`)
// as what each role said, plain text as itself, any other value as JSON. A chat input repeats the conversation so far;
// only its last message is new in this turn, so the earlier ones are folded away.
import { messagesOf } from '../../dashboard-api/chat-messages.ts';
import { h } from './dom.ts';
import { asText } from './format.ts';

/** A message's content as text: a string, or the text parts of OpenAI's content-part list, else JSON. */
function contentText(content: unknown): string {
  if (Array.isArray(content) && content.every((p) => typeof p?.text === 'string'))
    return content.map((p) => p.text as string).join('\n');
  return asText(content);
}

function bubble(side: 'in' | 'out', role: string, text: string, testid: string): HTMLElement {
  return h(
    'div',
    { class: `bubble ${side}`, 'data-testid': testid },
    h('div', { class: 'msg-role' }, role),
    h('div', { class: 'bubble-text' }, text),
  );
}

/** The bubbles of one side of a turn; nothing when the value is absent. */
export function chatBubbles(value: unknown, side: 'in' | 'out'): HTMLElement[] {
  if (value === null || value === undefined) return [];
  const testid = side === 'in' ? 'turn-input' : 'turn-output';
  const messages = messagesOf(value);
  if (!messages) return [bubble(side, side === 'in' ? 'input' : 'output', asText(value), testid)];
  const last = messages[messages.length - 1]!;
  const earlier = side === 'in' ? messages.slice(0, -1) : [];
  const shown = side === 'in' ? [last] : messages;
  return [
    earlier.length > 0
      ? h(
          'details',
          { class: 'earlier' },
          h('summary', null, `${earlier.length} earlier message${earlier.length === 1 ? '' : 's'}`),
          earlier.map((m) => bubble(side, m.role, contentText(m.content), 'turn-earlier')),
        )
      : null,
    ...shown.map((m) => bubble(side, m.role, contentText(m.content), testid)),
  ].filter((e): e is HTMLElement => e !== null);
}
