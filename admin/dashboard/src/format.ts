// Number and time formatting shared by the pages.

const nf = new Intl.NumberFormat('en-US');

export const num = (v: number | null | undefined) => (v === null || v === undefined ? '–' : nf.format(v));

export function ms(v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  return v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`;
}

// Below a cent, three significant digits: an embedding costs fractions of a millionth of a dollar.
const smallUsd = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });

export function usd(v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  if (v !== 0 && Math.abs(v) < 0.01) return `$${smallUsd.format(v)}`;
  return `$${v.toFixed(2)}`;
}

export const pct = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${round(v, 2)} %`);

export const rate = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${round(v, 3)} req/s`);

function round(v: number, digits: number): string {
  return String(Number(v.toFixed(digits)));
}

export function dateTime(v: string | number | null | undefined): string {
  if (v === null || v === undefined || v === '') return '–';
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return String(v);
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, 'Z');
}

/** Seconds since the epoch for uPlot, from an ISO string or a number (seconds or milliseconds). */
export function epochSeconds(t: string | number): number {
  if (typeof t === 'number') return t > 1e11 ? t / 1000 : t;
  return Date.parse(t) / 1000;
}

export function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** Values shown as JSON text: strings as they are, anything else pretty-printed. */
export function asText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  return JSON.stringify(v, null, 2);
}
