// Langfuse splits a list parameter given once on commas (`?environment=a,b`, `/v2/scores?observationId=a,b`) and takes
// a repeated one as it is (`?tags=a&tags=b`).

const split = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');

/** A repeatable parameter (the query schema makes it an array): one value is split on commas, several are kept. */
export const listParam = (values: readonly string[] | undefined): string[] | undefined =>
  values === undefined ? undefined : values.length === 1 ? split(values[0]) : [...values];

/** A parameter that is a comma-separated list (`scoreIds`, v2 `observationId`). */
export const commaList = (value: string | undefined): string[] | undefined =>
  value === undefined ? undefined : split(value);
