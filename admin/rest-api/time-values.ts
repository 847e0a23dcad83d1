// Dates and timestamps the REST API accepts, turned into the ISO strings the store takes (UTC, milliseconds).
import { RestApiError } from './rest-error.ts';
import { isCalendarDate } from './validation.ts';

const DAY_MS = 86_400_000;
// Years 1 to 9999: what toISOString writes in the plain four-digit form both Postgres drivers parse.
const MIN_MS = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

function invalid(field: string, location: 'body' | 'query', reason: string): RestApiError {
  const label = location === 'query' ? 'Query parameter' : 'Field';
  return new RestApiError('invalid_request', `${label} ${field} ${reason}.`, { field, reason, location });
}

/** Epoch ms of a value the schema accepted as date-time; a leap second (23:59:60) passes the format but not Date. */
export function instantOf(field: string, value: string, location: 'body' | 'query' = 'body'): number {
  const ms = isCalendarDate(value) ? Date.parse(`${value}T00:00:00Z`) : Date.parse(value);
  if (Number.isNaN(ms) || ms < MIN_MS || ms > MAX_MS)
    throw invalid(field, location, 'is not a representable instant (years 0001 to 9999, no leap second)');
  return ms;
}

export const isoOf = (ms: number) => new Date(ms).toISOString();

/**
 * The start-time window of GET /v1/traces as [from, to). A date-only value is a UTC day: startDate from its first
 * millisecond, endDate through its last, so `endDate=2026-01-31` includes that whole day. A date-time endDate is
 * inclusive to the millisecond, the precision the API shows.
 */
export function traceWindow(startDate?: string, endDate?: string): { from?: string; to?: string } {
  const from = startDate === undefined ? undefined : instantOf('startDate', startDate, 'query');
  const to =
    endDate === undefined ? undefined : instantOf('endDate', endDate, 'query') + (isCalendarDate(endDate) ? DAY_MS : 1);
  if (from !== undefined && to !== undefined && to <= from)
    throw invalid('endDate', 'query', 'must not be before startDate');
  return {
    from: from === undefined ? undefined : isoOf(from),
    to: to === undefined || to > MAX_MS ? undefined : isoOf(to),
  };
}
