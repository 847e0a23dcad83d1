// Small converters shared by the repositories: driver values to API values.

/** A timestamptz column as ISO 8601 with milliseconds, or undefined for null. */
export function iso(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  return (value instanceof Date ? value : new Date(String(value))).toISOString();
}

/** A jsonb value as text for a `$n::text::jsonb` parameter. */
export function json(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/** pg returns bigint and numeric as strings; PGlite as numbers. */
export function num(value: unknown): number {
  return value === null || value === undefined ? 0 : Number(value);
}

/** Adds a clause whose values are bound as the next `$n` placeholders, handed to `clause` in order. */
export type AddCondition = (clause: (...placeholders: string[]) => string, ...values: unknown[]) => void;

/** A WHERE clause built from optional filters: `add` binds the values as the next `$n` and keeps the clause. */
export function conditions(first: string, ...firstParams: unknown[]) {
  const where = [first];
  const params: unknown[] = [...firstParams];
  const add: AddCondition = (clause, ...values) => {
    const placeholders = values.map((v) => `$${params.push(v)}`);
    where.push(clause(...placeholders));
  };
  return {
    params,
    add,
    /** The conditions joined with AND. */
    sql: () => where.join(' AND '),
  };
}
