// What the detectors matched, handed to tracing as ctx.redactions: the field and offsets of each match (and, in
// memory only, its text) so the trace records where something was found and never what.
import type { CheckedText } from './detectors/checked-text.ts';
import type { Redaction, RequestContext } from '../../src/plugin-api/index.ts';
import type { PolicyVerdict } from './evaluate.ts';
import type { Where } from './verdicts.ts';

const keyOf = (r: Redaction) => `${r.where}|${r.path}|${r.start}|${r.end}|${r.detector}`;

/** Every match of every policy's findings, once (two policies with one detector find the same match). */
export function recordRedactions(
  ctx: RequestContext,
  where: Where,
  checked: CheckedText,
  verdicts: readonly PolicyVerdict[],
): void {
  const seen = new Set(ctx.redactions.map(keyOf));
  for (const v of verdicts) {
    for (const f of v.findings) {
      for (const range of f.matches) {
        for (const m of checked.locate(range)) {
          const r: Redaction = { detector: f.detector, where, path: m.path, start: m.start, end: m.end, text: m.text };
          if (seen.has(keyOf(r))) continue;
          seen.add(keyOf(r));
          ctx.redactions.push(r);
        }
      }
    }
  }
}
