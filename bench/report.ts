// Turns the rounds into the bench's tables and its verdicts: medians per target, ratios and differences to the
// floor taken per round (the targets ran back to back) and then the median, and each target's goals
// (bench/targets.ts) as met or MISSED.
import { median } from './load.ts';
import type { RoundResult } from './measure.ts';
import type { MemoryReply, ObserveReply } from './server-process.ts';
import type { Goals } from './targets.ts';

export interface Row {
  name: string;
  description: string;
  goals: Goals;
  /** Set when the target could not be measured. */
  unavailable?: string;
  rounds: RoundResult[];
  /** Bytes; RSS once started (before any request) and after the last round. */
  rssStart?: number;
  rssEnd?: number;
  /** Heap and peak RSS after the last round, where the process can tell. */
  memoryEnd?: MemoryReply;
}

export interface Summary {
  rps: number;
  rpsRatio: number;
  p99: number;
  p99Ratio: number;
  p99High: number;
  p99HighRatio: number;
  p50One: number;
  addedP50: number;
  p99One: number;
  addedP99One: number;
  ttfb: number;
  addedTtfb: number;
  cpuPerReq: number;
  cpuPerReqOne: number;
  /** Event-loop delay in ms: median of the rounds' p99, and the largest in any round. */
  loopP99: number;
  loopMax: number;
  loopP99High: number;
  loopMaxHigh: number;
  /** Share of the wall time in GC pauses at `connections`, and the longest pause, ms. */
  gcShare: number;
  gcMax: number;
  settleMs: number;
  bad: number;
}

const med = (rs: RoundResult[], value: (r: RoundResult) => number) => median(rs.map(value));
const most = (values: number[]) => (values.length === 0 ? Number.NaN : Math.max(...values));
const inside = (rs: RoundResult[], pick: (r: RoundResult) => ObserveReply | undefined) =>
  rs.map(pick).filter((o): o is ObserveReply => o !== undefined);

export function summarise(row: Row, floor: Row): Summary {
  const rs = row.rounds;
  const paired = (fn: (r: RoundResult, f: RoundResult) => number) =>
    median(rs.map((r, i) => (floor.rounds[i] ? fn(r, floor.rounds[i]) : Number.NaN)));
  const at = inside(rs, (r) => r.inside);
  const high = inside(rs, (r) => r.insideHigh);
  return {
    rps: med(rs, (r) => r.rps),
    rpsRatio: paired((r, f) => r.rps / f.rps),
    p99: med(rs, (r) => r.p99),
    p99Ratio: paired((r, f) => r.p99 / f.p99),
    p99High: med(rs, (r) => r.p99High),
    p99HighRatio: paired((r, f) => r.p99High / f.p99High),
    p50One: med(rs, (r) => r.p50One),
    addedP50: paired((r, f) => r.p50One - f.p50One),
    p99One: med(rs, (r) => r.p99One),
    addedP99One: paired((r, f) => r.p99One - f.p99One),
    ttfb: med(rs, (r) => r.ttfbP50),
    addedTtfb: paired((r, f) => r.ttfbP50 - f.ttfbP50),
    cpuPerReq: med(rs, (r) => r.cpuPerReq),
    cpuPerReqOne: med(rs, (r) => r.cpuPerReqOne),
    loopP99: median(at.map((o) => o.loopP99)),
    loopMax: most(at.map((o) => o.loopMax)),
    loopP99High: median(high.map((o) => o.loopP99)),
    loopMaxHigh: most(high.map((o) => o.loopMax)),
    gcShare: median(at.map((o) => o.gcTotal / o.wall)),
    gcMax: most(at.map((o) => o.gcMax)),
    settleMs: med(rs, (r) => r.settleMs),
    bad: rs.reduce((n, r) => n + r.bad, 0),
  };
}

export const f = (v: number | undefined, digits: number) =>
  v === undefined || Number.isNaN(v) ? 'n/a' : v.toFixed(digits);
const signed = (v: number, digits: number) => (Number.isNaN(v) ? 'n/a' : (v >= 0 ? '+' : '') + v.toFixed(digits));
const mb = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : (bytes / 1048576).toFixed(0));
/** A ratio; three decimals below 0.1 so a far-off peer does not show as 0.00x. */
const x = (v: number) => `${f(v, Math.abs(v) < 0.1 ? 3 : 2)}x`;

/**
 * Columns padded to their widest cell; the first `left` columns left-aligned, the rest right-aligned. A line of two
 * cells (a target that could not be measured) is written as they are.
 */
export function table(rows: string[][], left = 1): string {
  const widths = rows[0].map((_, i) =>
    Math.max(...rows.map((r) => (r.length === rows[0].length || i === 0 ? r[i].length : 0))),
  );
  return rows
    .map((r) =>
      r.length === rows[0].length
        ? r.map((c, i) => (i < left ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('   ')
        : `${r[0].padEnd(widths[0])}   ${r.slice(1).join('   ')}`,
    )
    .join('\n');
}

export interface Verdict {
  target: string;
  what: string;
  value: string;
  goal: string;
  met: boolean;
  /** Why, for a target that could not be measured. */
  reason?: string;
}

export function verdicts(row: Row, s: Summary | undefined): Verdict[] {
  const g = row.goals;
  if (Object.keys(g).length === 0) return [];
  if (row.unavailable || !s)
    return [{ target: row.name, what: 'measured', value: 'no', goal: 'yes', met: false, reason: row.unavailable }];
  const out: Verdict[] = [];
  const add = (what: string, value: number, shown: string, goal: string, met: boolean) =>
    out.push({ target: row.name, what, value: shown, goal, met: !Number.isNaN(value) && met });
  if (g.rpsRatio !== undefined)
    add('req/s at 32 conns vs floor', s.rpsRatio, x(s.rpsRatio), `>= ${g.rpsRatio}x`, s.rpsRatio >= g.rpsRatio);
  if (g.p99Ratio !== undefined) {
    add('p99 at 32 conns vs floor', s.p99Ratio, x(s.p99Ratio), `<= ${g.p99Ratio}x`, s.p99Ratio <= g.p99Ratio);
    add(
      'p99 at 128 conns vs floor',
      s.p99HighRatio,
      x(s.p99HighRatio),
      `<= ${g.p99Ratio}x`,
      s.p99HighRatio <= g.p99Ratio,
    );
  }
  if (g.rssMb !== undefined) {
    const rss = (row.rssEnd ?? Number.NaN) / 1048576;
    add('RSS after load', rss, `${f(rss, 0)} MB`, `<= ${g.rssMb} MB`, rss <= g.rssMb);
  }
  if (g.addedP50Ms !== undefined)
    add(
      'added p50 at 1 conn',
      s.addedP50,
      `${signed(s.addedP50, 3)} ms`,
      `<= +${g.addedP50Ms} ms`,
      s.addedP50 <= g.addedP50Ms,
    );
  if (g.addedTtfbMs !== undefined)
    add(
      'added streamed first byte',
      s.addedTtfb,
      `${signed(s.addedTtfb, 3)} ms`,
      `<= +${g.addedTtfbMs} ms`,
      s.addedTtfb <= g.addedTtfbMs,
    );
  out.push({ target: row.name, what: 'failed requests', value: String(s.bad), goal: '0', met: s.bad === 0 });
  return out;
}

/** The headline table: throughput, tail and footprint, one target per line. */
export function mainTable(rows: Row[], sums: Map<string, Summary>, c: number, high: number): string {
  const lines = [
    [
      'target',
      `req/s ${c}c`,
      'x floor',
      `p99 ${c}c ms`,
      'x floor',
      `p99 ${high}c ms`,
      'x floor',
      'CPU µs/req',
      `loop p99/max ${c}c ms`,
      `loop p99/max ${high}c ms`,
      'RSS MB start>load',
    ],
  ];
  for (const row of rows) {
    const s = sums.get(row.name);
    if (!s) {
      lines.push([row.name, `unavailable: ${row.unavailable}`]);
      continue;
    }
    lines.push([
      row.name,
      f(s.rps, 0),
      x(s.rpsRatio),
      f(s.p99, 1),
      x(s.p99Ratio),
      f(s.p99High, 1),
      x(s.p99HighRatio),
      f(s.cpuPerReq, 0),
      `${f(s.loopP99, 1)} / ${f(s.loopMax, 1)}`,
      `${f(s.loopP99High, 1)} / ${f(s.loopMaxHigh, 1)}`,
      `${mb(row.rssStart)} > ${mb(row.rssEnd)}`,
    ]);
  }
  return table(lines);
}

/** The second table: one connection, and inside the server. */
export function detailTable(rows: Row[], sums: Map<string, Summary>, c: number): string {
  const lines = [
    [
      'target',
      'p50 1c ms',
      'added',
      'p99 1c ms',
      'added',
      'first byte ms',
      'added',
      'CPU µs/req 1c',
      `GC % / max ms ${c}c`,
      'heap used/total MB',
      'peak RSS MB',
      'busy after load ms',
    ],
  ];
  for (const row of rows) {
    const s = sums.get(row.name);
    if (!s) continue;
    lines.push([
      row.name,
      f(s.p50One, 3),
      signed(s.addedP50, 3),
      f(s.p99One, 3),
      signed(s.addedP99One, 3),
      f(s.ttfb, 3),
      signed(s.addedTtfb, 3),
      f(s.cpuPerReqOne, 0),
      `${f(s.gcShare * 100, 1)} / ${f(s.gcMax, 1)}`,
      `${mb(row.memoryEnd?.heapUsed)} / ${mb(row.memoryEnd?.heapTotal)}`,
      mb(row.memoryEnd?.maxRss),
      f(s.settleMs, 0),
    ]);
  }
  return table(lines);
}

/** The peers' comparison: the figures the issue asks of every gateway, ours and theirs. */
export function peersTable(rows: Row[], sums: Map<string, Summary>, c: number): string {
  const lines = [
    [
      'target',
      `req/s ${c}c x floor`,
      'added p50 1c ms',
      'added p99 1c ms',
      `p99 ${c}c ms`,
      'CPU µs/req',
      'RSS MB after load',
    ],
  ];
  for (const row of rows) {
    const s = sums.get(row.name);
    if (!s) {
      lines.push([row.name, `unavailable: ${row.unavailable}`]);
      continue;
    }
    lines.push([
      row.name,
      x(s.rpsRatio),
      signed(s.addedP50, 3),
      signed(s.addedP99One, 3),
      f(s.p99, 1),
      f(s.cpuPerReq, 0),
      mb(row.rssEnd),
    ]);
  }
  return table(lines);
}

export function verdictTable(vs: Verdict[]): string {
  return table(
    [
      ['target', 'what', 'measured', 'goal', ''],
      ...vs.map((v) => [v.target, v.what, v.value, v.goal, v.met ? 'met' : 'MISSED']),
    ],
    2,
  );
}

export function roundLine(
  round: number,
  rounds: number,
  name: string,
  r: RoundResult,
  c: number,
  high: number,
): string {
  return (
    `round ${round}/${rounds}  ${name.padEnd(18)} ${f(r.rps, 0).padStart(6)} req/s  p99 ${f(r.p99, 1)} ms at ${c}, ` +
    `${f(r.p99High, 1)} ms at ${high}  p50 1c ${f(r.p50One, 3)} ms  first byte ${f(r.ttfbP50, 3)} ms  ` +
    `cpu ${f(r.cpuPerReq, 0)} µs/req (${f(r.cpuCores * 100, 0)}% of a core)` +
    (r.inside ? `  loop p99 ${f(r.inside.loopP99, 1)} max ${f(r.inside.loopMax, 1)} ms` : '') +
    `  other load ${f(r.otherLoad, 2)}` +
    (r.bad > 0 ? `  ${r.bad} FAILED` : '')
  );
}
