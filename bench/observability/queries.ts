// The reads issue 21 sets a latency goal for, as clients send them over HTTP: the public API's trace list (page 1,
// page 100, each documented filter), v2 observations followed by their cursor, sessions, one trace with its
// observations and scores, and the REST API's trace list. Each runs alone, one request at a time: a warm-up, then
// the timed requests, each with different parameters (names, users, sessions, days, pages).
import { percentile } from '../load.ts';
import { CUSTOMERS, NAMES, SPAN_MS, TAGS, sessionOf, traceIdOf, userOf, type DataSet } from './data-set.ts';
import type { BenchService } from './service.ts';

/** p95 goal of every query, over HTTP (issue 21). */
export const GOAL_MS = 100;
export const PAGE_LIMIT = 50;
export const REST_LIMIT = 100;
const DAY_MS = 86_400_000;

export interface QueryCase {
  name: string;
  surface: 'public' | 'rest';
  /** Path and query of request k; `previous` is the body of request k - 1 (undefined for the first). */
  path(k: number, previous: any): string;
  /** Items in an answer. */
  rows(body: any): number;
}

/** A trace index for request k, spread over the whole set (the golden-ratio sequence). */
const spread = (set: DataSet, k: number) => Math.floor((((k + 1) * 0.6180339887498949) % 1) * set.traces);

const listed = (body: any) => (body.data as unknown[]).length;
const traces = (query: string) => `/api/public/traces?limit=${PAGE_LIMIT}&${query}`;

export function queryCases(set: DataSet): QueryCase[] {
  const day = (k: number) => {
    const to = set.end + 1 - (k % (SPAN_MS / DAY_MS)) * DAY_MS;
    return `fromTimestamp=${new Date(to - DAY_MS).toISOString()}&toTimestamp=${new Date(to).toISOString()}`;
  };
  const metadata = (k: number) =>
    JSON.stringify([
      { type: 'stringObject', column: 'metadata', key: 'customer', operator: '=', value: `acme-${k % CUSTOMERS}` },
    ]);
  const pub = (name: string, path: QueryCase['path'], rows = listed): QueryCase => ({
    name,
    surface: 'public',
    path,
    rows,
  });
  return [
    pub('traces, page 1', () => traces('page=1')),
    pub('traces, page 100', () => traces('page=100')),
    pub('traces by name', (k) => traces(`name=${NAMES[k % NAMES.length]}`)),
    pub('traces by tag', (k) => traces(`tags=${TAGS[k % TAGS.length]}`)),
    pub('traces by userId', (k) => traces(`userId=${userOf(spread(set, k))}`)),
    pub('traces by sessionId', (k) => traces(`sessionId=${sessionOf(spread(set, k))}`)),
    pub('traces of one day', (k) => traces(day(k))),
    pub('traces by environment', (k) => traces(`environment=${k % 2 === 0 ? 'production' : 'staging'}`)),
    pub('traces by metadata filter', (k) => traces(`filter=${encodeURIComponent(metadata(k))}`)),
    pub('v2/observations, by cursor', (_, previous) => {
      const cursor = previous?.meta?.cursor as string | undefined;
      return `/api/public/v2/observations?limit=${PAGE_LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    }),
    pub('sessions', (k) => `/api/public/sessions?limit=${PAGE_LIMIT}&page=${1 + (k % 3)}`),
    pub(
      'trace with observations, scores',
      (k) => `/api/public/traces/${traceIdOf(spread(set, k))}`,
      (body) => 1 + body.observations.length + body.scores.length,
    ),
    { name: 'REST /v1/traces', surface: 'rest', path: () => `/v1/traces?limit=${REST_LIMIT}`, rows: listed },
    {
      name: 'REST /v1/traces?status=completed',
      surface: 'rest',
      path: () => `/v1/traces?status=completed&limit=${REST_LIMIT}`,
      rows: listed,
    },
  ];
}

export interface QueryTiming {
  name: string;
  /** Milliseconds, over the timed requests. */
  p50: number;
  p95: number;
  max: number;
  /** Items in each timed answer. */
  rows: number[];
  failures: number;
  firstFailure?: string;
}

interface Answer {
  ms: number;
  status: number;
  text: string;
}

async function call(service: BenchService, c: QueryCase, path: string): Promise<Answer> {
  const authorization = c.surface === 'public' ? service.basicAuth : service.bearerAuth;
  const t0 = performance.now();
  const res = await fetch(`${service.adminUrl}${path}`, { headers: { authorization } });
  const text = await res.text();
  return { ms: performance.now() - t0, status: res.status, text };
}

/** Runs `count` requests of the case in turn (each may follow the one before); times and items of each. */
async function series(service: BenchService, c: QueryCase, count: number) {
  const times: number[] = [];
  const rows: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let previous: unknown;
  for (let k = 0; k < count; k++) {
    const path = c.path(k, previous);
    const a = await call(service, c, path);
    times.push(a.ms);
    if (a.status !== 200) {
      failures++;
      firstFailure ??= `${path}: ${a.status} ${a.text.slice(0, 300)}`;
      previous = undefined;
      continue;
    }
    previous = JSON.parse(a.text);
    rows.push(c.rows(previous));
  }
  return { times, rows, failures, firstFailure };
}

export async function timeQueries(
  service: BenchService,
  cases: QueryCase[],
  o: { warmUp: number; requests: number },
): Promise<QueryTiming[]> {
  const out: QueryTiming[] = [];
  for (const c of cases) {
    await series(service, c, o.warmUp);
    const { times, rows, failures, firstFailure } = await series(service, c, o.requests);
    const sample = Float64Array.from(times);
    out.push({
      name: c.name,
      p50: percentile(sample, 50),
      p95: percentile(sample, 95),
      max: percentile(sample, 100),
      rows,
      failures,
      firstFailure,
    });
  }
  return out;
}
