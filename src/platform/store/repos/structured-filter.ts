// Langfuse's structured `filter` query parameter (a JSON array of {type, column, operator, value, key?}) compiled to
// SQL conditions over one table's columns. Each list route names the columns it offers; conditions are ANDed.
import { createAjv } from '../../validation/ajv.ts';
import type { AddCondition } from './rows.ts';

export type FilterType =
  | 'datetime'
  | 'string'
  | 'number'
  | 'stringOptions'
  | 'categoryOptions'
  | 'arrayOptions'
  | 'stringObject'
  | 'numberObject'
  | 'booleanObject'
  | 'boolean'
  | 'null';

export interface FilterCondition {
  type: FilterType;
  column: string;
  operator: string;
  value?: unknown;
  key?: string;
}

/** How a column reads in SQL, and which condition types apply to it. */
export interface FilterColumn {
  sql: string;
  kind: 'string' | 'datetime' | 'number' | 'array' | 'object' | 'boolean';
}

const OPERATORS: Record<FilterType, readonly string[]> = {
  datetime: ['>', '<', '>=', '<='],
  string: ['=', 'contains', 'does not contain', 'starts with', 'ends with'],
  stringOptions: ['any of', 'none of'],
  categoryOptions: ['any of', 'none of'],
  arrayOptions: ['any of', 'none of', 'all of'],
  number: ['=', '>', '<', '>=', '<='],
  stringObject: ['=', 'contains', 'does not contain', 'starts with', 'ends with'],
  numberObject: ['=', '>', '<', '>=', '<='],
  booleanObject: ['=', '<>'],
  boolean: ['=', '<>'],
  null: ['is null', 'is not null'],
};

/** Which column kinds each condition type may name. */
const TYPES_FOR_KIND: Record<FilterColumn['kind'], readonly FilterType[]> = {
  string: ['string', 'stringOptions', 'categoryOptions', 'null'],
  datetime: ['datetime', 'null'],
  number: ['number', 'null'],
  array: ['arrayOptions'],
  object: ['stringObject', 'numberObject', 'booleanObject', 'categoryOptions'],
  boolean: ['boolean'],
};

const conditionSchema = {
  type: 'array',
  maxItems: 50,
  items: {
    type: 'object',
    required: ['type', 'column', 'operator'],
    additionalProperties: false,
    properties: {
      type: { enum: Object.keys(OPERATORS) },
      column: { type: 'string', minLength: 1 },
      operator: { type: 'string' },
      value: {},
      key: { type: 'string', minLength: 1 },
    },
  },
};
const validateShape = createAjv().compile<FilterCondition[]>(conditionSchema);

/** Thrown for a filter that cannot be read or names what the route does not offer; the message says which. */
export class FilterError extends Error {}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** An ISO 8601 date or timestamp both JavaScript and Postgres read the same way (`Date.parse` alone takes `"1"`). */
export const isIsoTimestamp = (v: unknown): v is string =>
  typeof v === 'string' && ISO_TIMESTAMP.test(v) && !Number.isNaN(Date.parse(v));

function checkValue(c: FilterCondition): void {
  const bad = (expected: string) => new FilterError(`filter on '${c.column}': value must be ${expected}`);
  switch (c.type) {
    case 'datetime':
      if (!isIsoTimestamp(c.value)) throw bad('an ISO 8601 timestamp');
      return;
    case 'string':
    case 'stringObject':
      if (typeof c.value !== 'string') throw bad('a string');
      return;
    case 'number':
    case 'numberObject':
      if (typeof c.value !== 'number' || !Number.isFinite(c.value)) throw bad('a number');
      return;
    case 'stringOptions':
    case 'categoryOptions':
    case 'arrayOptions':
      if (!isStringArray(c.value)) throw bad('an array of strings');
      return;
    case 'boolean':
    case 'booleanObject':
      if (typeof c.value !== 'boolean') throw bad('true or false');
      return;
    case 'null':
      return;
  }
}

/** Reads the parameter's text into checked conditions over `columns`; throws FilterError with the reason. */
export function parseFilter(text: string, columns: Record<string, FilterColumn>): FilterCondition[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new FilterError('filter must be a JSON array of conditions');
  }
  if (!validateShape(raw)) {
    const e = validateShape.errors?.[0];
    throw new FilterError(`filter${e?.instancePath ?? ''} ${e?.message ?? 'is not valid'}`);
  }
  // The store's text cannot hold a NUL; a key or value with one could never match.
  if (JSON.stringify(raw).includes('\\u0000')) throw new FilterError('filter must not contain NUL characters');
  for (const c of raw) {
    const column = Object.hasOwn(columns, c.column) ? columns[c.column] : undefined;
    if (!column)
      throw new FilterError(
        `filter column '${c.column}' is not supported here; supported: ${Object.keys(columns).join(', ')}`,
      );
    if (!TYPES_FOR_KIND[column.kind].includes(c.type))
      throw new FilterError(`filter type '${c.type}' does not apply to column '${c.column}'`);
    if (!OPERATORS[c.type].includes(c.operator))
      throw new FilterError(
        `filter operator '${c.operator}' does not apply to type '${c.type}'; use one of: ${OPERATORS[c.type].join(', ')}`,
      );
    if (column.kind === 'object' && c.key === undefined) throw new FilterError(`filter on '${c.column}' needs a key`);
    checkValue(c);
  }
  return raw;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

function stringCondition(sql: string, operator: string, p: string): string {
  switch (operator) {
    case 'contains':
      return `${sql} LIKE '%' || ${p} || '%'`;
    case 'does not contain':
      return `(${sql} IS NULL OR ${sql} NOT LIKE '%' || ${p} || '%')`;
    case 'starts with':
      return `${sql} LIKE ${p} || '%'`;
    case 'ends with':
      return `${sql} LIKE '%' || ${p}`;
    default:
      return `${sql} = ${p}`;
  }
}

const likeValue = (operator: string, value: string) => (operator === '=' ? value : escapeLike(value));

/**
 * Adds each condition through `add`, which binds every value (metadata keys included) as a parameter. Columns must
 * come from the same map `parseFilter` checked them against.
 */
export function applyFilter(
  conditions: readonly FilterCondition[],
  columns: Record<string, FilterColumn>,
  add: AddCondition,
): void {
  for (const c of conditions) {
    const { sql } = columns[c.column];
    switch (c.type) {
      case 'null':
        add((p) => `(${sql} IS NULL) = ${p}::boolean`, c.operator === 'is null');
        break;
      case 'datetime':
        add((p) => `${sql} ${c.operator} ${p}::timestamptz`, c.value);
        break;
      case 'number':
        add((p) => `${sql} ${c.operator} ${p}::double precision`, c.value);
        break;
      case 'boolean':
        add((p) => `${sql} ${c.operator === '=' ? '=' : 'IS DISTINCT FROM'} ${p}::boolean`, c.value);
        break;
      case 'string':
        add((p) => stringCondition(sql, c.operator, p), likeValue(c.operator, c.value as string));
        break;
      case 'stringOptions':
      case 'categoryOptions':
        if (columns[c.column].kind === 'object' && c.operator === 'any of')
          addObjectTextIn(sql, c.key!, c.value as string[], add);
        else if (columns[c.column].kind === 'object')
          add((k, p) => optionsCondition(`(${sql} ->> ${k}::text)`, c.operator, p), c.key, c.value);
        else if (c.operator === 'any of') addAnyOf(sql, c.value as string[], add);
        else add((p) => optionsCondition(sql, c.operator, p), c.value);
        break;
      case 'arrayOptions': {
        const op = { 'any of': '&&', 'all of': '@>', 'none of': '&&' }[c.operator as 'any of'];
        add((p) => `${c.operator === 'none of' ? 'NOT ' : ''}(${sql} ${op} ${p}::text[])`, c.value);
        break;
      }
      case 'stringObject':
        if (c.operator === '=') addObjectTextIn(sql, c.key!, [c.value as string], add);
        else
          add(
            (k, p) => stringCondition(`(${sql} ->> ${k}::text)`, c.operator, p),
            c.key,
            likeValue(c.operator, c.value as string),
          );
        break;
      case 'numberObject':
        add(
          (k, p) =>
            `(CASE WHEN jsonb_typeof(${sql} -> ${k}::text) = 'number' THEN (${sql} ->> ${k}::text)::double precision END) ${c.operator} ${p}::double precision`,
          c.key,
          c.value,
        );
        break;
      case 'booleanObject':
        add(
          (k, p) => `(${sql} -> ${k}::text) ${c.operator === '=' ? '=' : 'IS DISTINCT FROM'} to_jsonb(${p}::boolean)`,
          c.key,
          c.value,
        );
        break;
    }
  }
}

/**
 * Adds `sql = ANY(values)`; one value is compared with `=`, so that an index on (project_id, column, time) still
 * gives rows in time order (with `= ANY`, PostgreSQL 15 reads every match and sorts).
 */
export function addAnyOf(sql: string, values: readonly string[], add: AddCondition): void {
  if (values.length === 1) add((p) => `${sql} = ${p}`, values[0]);
  else add((p) => `${sql} = ANY(${p}::text[])`, values);
}

/**
 * The JSON objects `{key: v}`, one of which an object whose `->>` text at `key` is `value` contains: the string
 * `value`, and when that text is itself a JSON number, boolean, array or object (`5`, `true`), that value. Spliced as
 * text, so PostgreSQL reads a long number exactly.
 */
function containedObjects(key: string, value: string): string[] {
  const objects = [JSON.stringify({ [key]: value })];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return objects;
  }
  if (typeof parsed !== 'string' && parsed !== null) objects.push(`{${JSON.stringify(key)}:${value}}`);
  return objects;
}

/**
 * Adds: the text at `key` of the object column `sql` is one of `values`. Written as containment (`@>`, which a GIN
 * index on the column serves) narrowed by the exact text comparison, which keeps `->>`'s meaning (the number 5 reads
 * as "5", and containment also finds 5.0).
 */
function addObjectTextIn(sql: string, key: string, values: readonly string[], add: AddCondition): void {
  const objects = values.flatMap((v) => containedObjects(key, v));
  add(
    (o, k, v) => `(${sql} @> ANY(${o}::jsonb[]) AND (${sql} ->> ${k}::text) = ANY(${v}::text[]))`,
    objects,
    key,
    values,
  );
}

/** `any of` / `none of` a list; `none of` also holds where the value is null. */
function optionsCondition(value: string, operator: string, p: string): string {
  return operator === 'any of' ? `${value} = ANY(${p}::text[])` : `NOT (${value} = ANY(${p}::text[])) IS TRUE`;
}
