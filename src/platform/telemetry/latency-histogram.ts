// Latency histograms with fixed log-spaced buckets: bucket 0 holds [0, 1) ms, bucket i ≥ 1 holds [G^(i-1), G^i) ms
// with G = 1.05, and the last bucket everything from about a day up. A percentile is read as the geometric middle
// of the bucket holding the nearest-rank value, so from 1 ms to a day it is within sqrt(G) - 1 = 2.47 % of the exact
// nearest-rank percentile, and below 1 ms within 0.5 ms. Stored sparse, as {"<index>": count} (a jsonb column).

export type Histogram = Record<string, number>;

const GROWTH = 1.05;
const LN_GROWTH = Math.log(GROWTH);
/** Index of the open-ended last bucket: its lower bound G^(LAST-1) is just over 24 h in ms. */
export const LAST_BUCKET = Math.ceil(Math.log(86_400_000) / LN_GROWTH) + 1;
/** The documented bound on the relative error of a percentile at or above 1 ms. */
export const RELATIVE_ERROR = Math.sqrt(GROWTH) - 1;

export function bucketOf(ms: number): number {
  if (!(ms >= 1)) return 0;
  return Math.min(LAST_BUCKET, Math.floor(Math.log(ms) / LN_GROWTH) + 1);
}

/** The value a bucket stands for: its geometric middle (the last bucket: its lower bound). */
export function bucketValue(index: number): number {
  if (index <= 0) return 0.5;
  if (index >= LAST_BUCKET) return GROWTH ** (LAST_BUCKET - 1);
  return GROWTH ** (index - 0.5);
}

export function record(h: Histogram, ms: number, count = 1): void {
  const i = bucketOf(ms);
  h[i] = (h[i] ?? 0) + count;
}

/** Adds `source` into `target`. */
export function mergeInto(target: Histogram, source: Readonly<Histogram>): void {
  for (const k in source) target[k] = (target[k] ?? 0) + Number(source[k]);
}

export function countOf(h: Readonly<Histogram>): number {
  let n = 0;
  for (const k in h) n += Number(h[k]);
  return n;
}

/**
 * The p-th percentile (0 < p ≤ 100) by nearest rank, or null for an empty histogram. Integer-like keys enumerate in
 * ascending numeric order (ECMAScript own-property order), so no sort is needed.
 */
export function percentile(h: Readonly<Histogram>, p: number, total = countOf(h)): number | null {
  if (total <= 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  let last = 0;
  for (const k in h) {
    last = Number(k);
    seen += Number(h[k]);
    if (seen >= rank) return bucketValue(last);
  }
  return bucketValue(last);
}
