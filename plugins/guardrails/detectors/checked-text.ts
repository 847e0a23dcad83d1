// The text guardrails read (prompt messages and embeddings input, answers), each field with its path in the body, so
// a match in the scanned text can be told back as a field and offsets in it.
import type { JsonObject, RouteName, StreamedTexts } from '../../../src/plugin-api/index.ts';
import type { MatchRange } from './types.ts';

/** One field guardrails read: its path in the request or answer body (`messages[1].content`) and its text. */
export interface TextField {
  path: string;
  text: string;
}

/** The part of one field a match covers: UTF-16 offsets in that field's text, and the text itself. */
export interface FieldMatch {
  path: string;
  start: number;
  end: number;
  text: string;
}

// Separate fields so a pattern never joins the end of one message to the start of the next.
const SEPARATOR = '\n\n';

/** Fields joined into the one text detectors scan, remembering where each field starts in it. */
export class CheckedText {
  readonly text: string;
  readonly #fields: readonly TextField[];
  readonly #starts: readonly number[];

  constructor(fields: readonly TextField[]) {
    this.#fields = fields;
    const starts: number[] = [];
    let at = 0;
    for (const f of fields) {
      starts.push(at);
      at += f.text.length + SEPARATOR.length;
    }
    this.#starts = starts;
    this.text = fields.map((f) => f.text).join(SEPARATOR);
  }

  /** The parts of the fields a match covers (a custom pattern may run across the separator into the next field). */
  locate([start, end]: MatchRange): FieldMatch[] {
    const out: FieldMatch[] = [];
    this.#fields.forEach((field, i) => {
      const from = this.#starts[i];
      const s = Math.max(start, from) - from;
      const e = Math.min(end, from + field.text.length) - from;
      if (s < e) out.push({ path: field.path, start: s, end: e, text: field.text.slice(s, e) });
    });
    return out;
  }
}

/** A message's `content`: a string, or content parts of which the text parts count. */
function contentFields(content: unknown, path: string, out: TextField[]): void {
  if (typeof content === 'string') out.push({ path, text: content });
  else if (Array.isArray(content)) {
    content.forEach((part, i) => {
      if (typeof part?.text === 'string' && part.type === 'text')
        out.push({ path: `${path}[${i}].text`, text: part.text });
    });
  }
}

export function requestText(route: RouteName, body: JsonObject | undefined): CheckedText {
  const out: TextField[] = [];
  if (route === 'chat' && Array.isArray(body?.messages)) {
    body.messages.forEach((m, i) => contentFields((m as JsonObject | null)?.content, `messages[${i}].content`, out));
  } else if (route === 'embeddings') {
    // Token-id arrays carry no text to check.
    const input = body?.input;
    if (typeof input === 'string') out.push({ path: 'input', text: input });
    else if (Array.isArray(input))
      input.forEach((item, i) => typeof item === 'string' && out.push({ path: `input[${i}]`, text: item }));
  }
  return new CheckedText(out);
}

/** The assistant messages of a non-streamed chat completion. */
export function responseText(body: unknown): CheckedText {
  const out: TextField[] = [];
  const choices = (body as { choices?: unknown } | null)?.choices;
  if (Array.isArray(choices))
    choices.forEach((c, i) => contentFields(c?.message?.content, `choices[${i}].message.content`, out));
  return new CheckedText(out);
}

/** A streamed answer's choices as ctx.streamed kept them, each as its message's content would hold it. */
export function streamedText(texts: StreamedTexts): CheckedText {
  return new CheckedText(texts.choices.map(({ index, text }) => ({ path: `choices[${index}].message.content`, text })));
}
