// Usage and cost of an observation event (docs/public-api.md "POST /api/public/ingestion", Field rules): legacy
// `usage`, `usageDetails` in our own key→count form or OpenAI's Chat Completions / Responses shapes (detail counts
// taken out of input and output: exclusive buckets), and `costDetails`. Totals are what the observations table sums per
// trace.
import { isObject } from '../../platform/validation/json-object.ts';

type Counts = Record<string, number>;

const count = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined;
};

/** OpenAI usage (`prompt_tokens` or `input_tokens` families) as exclusive buckets. */
function fromOpenAi(
  u: Record<string, unknown>,
  inKey: string,
  outKey: string,
  inDetails: string,
  outDetails: string,
): Counts {
  const out: Counts = {};
  const bucket = (total: unknown, details: unknown, name: 'input' | 'output') => {
    let rest = count(total);
    if (isObject(details)) {
      for (const [k, v] of Object.entries(details)) {
        const n = count(v);
        if (n === undefined) continue;
        out[`${name}_${k}`] = n;
        if (rest !== undefined) rest = Math.max(0, rest - n);
      }
    }
    if (rest !== undefined) out[name] = rest;
  };
  bucket(u[inKey], u[inDetails], 'input');
  bucket(u[outKey], u[outDetails], 'output');
  const total = count(u.total_tokens);
  if (total !== undefined) out.total = total;
  return out;
}

function fromLegacy(u: Record<string, unknown>): Counts {
  const openAi = 'promptTokens' in u || 'completionTokens' in u || 'totalTokens' in u;
  const pairs: [string, unknown][] = openAi
    ? [
        ['input', u.promptTokens],
        ['output', u.completionTokens],
        ['total', u.totalTokens],
      ]
    : [
        ['input', u.input],
        ['output', u.output],
        ['total', u.total],
      ];
  const out: Counts = {};
  for (const [k, v] of pairs) {
    const n = count(v);
    if (n !== undefined) out[k] = n;
  }
  if (out.total === undefined && (out.input !== undefined || out.output !== undefined))
    out.total = (out.input ?? 0) + (out.output ?? 0);
  return out;
}

/** Usage counts of an event body, or undefined when it gives none (so stored usage is kept). */
export function usageDetailsOf(body: Record<string, unknown>): Counts | undefined {
  let out: Counts = {};
  const details = body.usageDetails;
  if (isObject(details) && Object.keys(details).length > 0) {
    if ('prompt_tokens' in details || 'completion_tokens' in details) {
      out = fromOpenAi(
        details,
        'prompt_tokens',
        'completion_tokens',
        'prompt_tokens_details',
        'completion_tokens_details',
      );
    } else if ('input_tokens' in details || 'output_tokens' in details) {
      out = fromOpenAi(details, 'input_tokens', 'output_tokens', 'input_tokens_details', 'output_tokens_details');
    } else {
      for (const [k, v] of Object.entries(details)) {
        const n = count(v);
        if (n !== undefined) out[k] = n;
      }
    }
    if (out.total === undefined && Object.keys(out).length > 0)
      out.total = Object.values(out).reduce((a, b) => a + b, 0);
  } else if (isObject(body.usage)) {
    out = fromLegacy(body.usage);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Cost in USD per key, or undefined when the event gives none; legacy `usage.inputCost` etc. count too. */
export function costDetailsOf(body: Record<string, unknown>): Counts | undefined {
  const out: Counts = {};
  if (isObject(body.costDetails)) {
    for (const [k, v] of Object.entries(body.costDetails)) {
      if (typeof v === 'number' && Number.isFinite(v) && v >= 0) out[k] = v;
    }
  } else if (isObject(body.usage)) {
    const u = body.usage;
    for (const [k, from] of [
      ['input', u.inputCost],
      ['output', u.outputCost],
      ['total', u.totalCost],
    ] as const) {
      if (typeof from === 'number' && Number.isFinite(from) && from >= 0) out[k] = from;
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The `total` key, else the sum of the others. */
export const totalOf = (m: Counts): number => m.total ?? Object.values(m).reduce((a, b) => a + b, 0);
