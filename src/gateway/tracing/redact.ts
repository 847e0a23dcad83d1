// Replaces what a plugin found must not be recorded (ctx.redactions, a guardrail's matches) wherever a trace would
// hold it: every occurrence, in every string of a value, by `[REDACTED:<detector>]`. Replacing by text rather than
// by position also covers the same secret elsewhere: an answer echoing a refused prompt, a provider's error message.
import type { Redaction } from '../../plugin-api/contract.ts';

export const redactionMarker = (detector: string) => `[REDACTED:${detector}]`;

/** What the trace keeps of each redaction (metadata `gateway.redactions`): everything but the text. */
export const redactionRecords = (redactions: readonly Redaction[]) => redactions.map(({ text: _, ...where }) => where);

/** A deep copy of a JSON value with every redacted text replaced; the value itself when there is nothing to replace. */
export function redactor(redactions: readonly Redaction[]): <T>(value: T) => T {
  if (redactions.length === 0) return (value) => value;
  const markers = new Map<string, string>();
  for (const r of redactions)
    if (r.text !== '' && !markers.has(r.text)) markers.set(r.text, redactionMarker(r.detector));
  // Longest first, so a text that contains a shorter match is replaced whole.
  const replacements = [...markers].sort(([a], [b]) => b.length - a.length);
  const inString = (s: string) =>
    replacements.reduce((out, [text, marker]) => (out.includes(text) ? out.split(text).join(marker) : out), s);
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return inString(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  return <T>(value: T) => walk(value) as T;
}
