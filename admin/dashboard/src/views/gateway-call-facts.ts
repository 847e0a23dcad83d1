// A gateway call's own facts in an agent's trace, beyond what Langfuse can know: its cost per component, the group it
// fell back from, each guardrail verdict (policy, detector, where, how often), redactions, soft budget limits passed.
import { h, type Child } from '../dom.ts';
import { asText, num } from '../format.ts';
import type { Attempt } from './trace-model.ts';

type Finding = {
  policy?: string;
  detector?: string;
  service?: string;
  where?: string;
  count?: number;
  reason?: string;
};

/** The cost components of every attempt, summed part by part (what the call cost, as Langfuse's cost details). */
export function callCostDetails(attempts: readonly Attempt[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const a of attempts) for (const [k, v] of Object.entries(a.costDetails ?? {})) sum[k] = (sum[k] ?? 0) + v;
  return sum;
}

function findingText(kind: string, f: Finding): string {
  const what = [f.policy, f.detector ?? f.service].filter(Boolean).join(' / ');
  const count = f.count === undefined ? '' : ` ×${num(f.count)}`;
  const where = f.where ? ` in ${f.where}` : '';
  return `${kind}: ${what}${count}${where}${f.reason ? ` (${f.reason})` : ''}`;
}

/** One line per guardrail verdict, e.g. `flagged: pii / email ×2 in request`; none when no policy spoke. */
export function guardrailVerdicts(governance: Record<string, unknown>): string[] {
  return Object.entries(governance)
    .filter(([k]) => k.startsWith('guardrails.'))
    .flatMap(([k, v]) => {
      const kind = k.slice('guardrails.'.length).replace(/_/g, ' ');
      return Array.isArray(v) ? v.map((f: Finding) => findingText(kind, f)) : [`${kind}: ${asText(v)}`];
    });
}

/** The verdicts as a list for the details pane; null when there are none. */
export function verdictList(governance: Record<string, unknown>): Child {
  const lines = guardrailVerdicts(governance);
  return lines.length
    ? h(
        'ul',
        { class: 'list', 'data-testid': 'gateway-call-guardrails' },
        lines.map((l) => h('li', null, l)),
      )
    : null;
}
