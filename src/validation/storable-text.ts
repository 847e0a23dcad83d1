// What PostgreSQL cannot store, checked before a write so that the caller gets a 400 naming the field instead of a
// failed statement (a 500): text and jsonb cannot hold U+0000, UTF-8 cannot encode an unpaired surrogate (JSON and
// URLs can carry both), a btree index entry holds at most about 2.7 KB, and timestamptz starts at year 1.

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const UNSTORABLE_REASON = 'contains U+0000 or an unpaired surrogate, which cannot be stored';

export const hasUnstorableText = (s: string): boolean => UNSTORABLE.test(s);

/** The path to the first string (value or key) that cannot be stored, or undefined when there is none. */
export function unstorablePath(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorablePath(value[i], [...path, String(i)]);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (UNSTORABLE.test(k)) return [...path, k];
      const found = unstorablePath(v, [...path, k]);
      if (found) return found;
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
