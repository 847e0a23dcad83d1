// What PostgreSQL cannot store, checked before a write so that the caller gets a 400 naming the field instead of a
// failed statement (a 500): text and jsonb cannot hold U+0000, UTF-8 cannot encode an unpaired surrogate (JSON and
// URLs can carry both), a btree index entry holds at most about 2.7 KB, and timestamptz starts at year 1.

export const UNSTORABLE_REASON = 'contains U+0000 or an unpaired surrogate, which cannot be stored';

// isWellFormed is native and finds unpaired surrogates without a regular expression's per-character work.
const hasUnstorableText = (s: string): boolean => s.includes('\u0000') || !s.isWellFormed();

/**
 * The path to the first string (value or key) that cannot be stored, or undefined when there is none. Ingestion
 * walks every event with it, so the path is built only on the way back from a find.
 */
export function unstorablePath(value: unknown): string[] | undefined {
  const found = findUnstorable(value);
  return found?.reverse();
}

/** The path of the first unstorable string, innermost key first. */
function findUnstorable(value: unknown): string[] | undefined {
  if (typeof value === 'string') return hasUnstorableText(value) ? [] : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i]);
      if (found) {
        found.push(String(i));
        return found;
      }
    }
    return undefined;
  }
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    if (hasUnstorableText(k)) return [k];
    const found = findUnstorable((value as Record<string, unknown>)[k]);
    if (found) {
      found.push(k);
      return found;
    }
  }
  return undefined;
}

/** A path for a message: the characters that made it unstorable shown as U+FFFD. */
export const printablePath = (path: readonly string[]) =>
  path.map((s) => s.replace(/[\u0000\ud800-\udfff]/g, '\ufffd')).join('.');

/** The UTF-8 size a string kept in an indexed column may have (PostgreSQL's btree limit is 2,704 bytes per entry). */
export const MAX_INDEXED_BYTES = 2000;

export const fitsIndex = (s: string): boolean =>
  s.length * 3 <= MAX_INDEXED_BYTES || Buffer.byteLength(s, 'utf8') <= MAX_INDEXED_BYTES;

/** 0001-01-01T00:00:00Z: PostgreSQL's timestamptz has no year 0, which ISO 8601 and JavaScript accept. */
export const EARLIEST_STORABLE_TIME = -62_135_596_800_000;
