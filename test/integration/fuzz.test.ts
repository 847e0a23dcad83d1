// Seeded, time-bounded fuzzing of the three request surfaces: the gateway, the REST API (/v1) and the public API
// (/api/public). Bodies (random JSON of random depth and types, wrong types in known fields, huge numbers, U+0000 and
// lone surrogates in strings, very long strings), paths (random segments, percent-escapes, NUL) and headers
// (content-type variants, bad auth). A fourth run puts hostile values — NUL, bare CR, bare LF, 64 KB, SQL
// metacharacters, pg_sleep payloads — into every surface's credentials (gateway Bearer and api-key, REST Bearer, public
// API Basic, dashboard sign-in and session cookie), written on raw sockets since HTTP clients refuse to send most of
// them. Every answer must be something other than a 500, in the surface's documented envelope, within 10 s. The seed is printed; SVC_FUZZ_SEED replays a run, SVC_FUZZ_MS sets the time per surface (default 4 s).
// Case n of a surface is generated from (seed, surface, n) alone, so a failure names the case that reproduces it.
import t, { type Test } from 'tap';
import { GATEWAY_ERROR_STATUS, errorTypeForStatus } from '../../src/platform/errors/codes.ts';
import { REST_ERROR_STATUS } from '../../admin/rest-api/rest-error.ts';
import { DASHBOARD_ERROR_STATUS } from '../../admin/dashboard-api/dashboard-error.ts';
import { createApiKey, type CreatedApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { basicAuth } from '../helpers/public-api.ts';
import { rawHttp, rawRequest } from '../helpers/raw-http.ts';
import { baseConfig, startTestService, TEST_KEY, type TestService } from '../helpers/service.ts';

const SEED = Number(process.env.SVC_FUZZ_SEED ?? 20261121);
const MS_PER_SURFACE = Number(process.env.SVC_FUZZ_MS ?? 4_000);
const WORKERS = 4;

/** mulberry32: a small seeded PRNG; one per case. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Percent-encodes a string for a URL, a lone surrogate as the three bytes a careless encoder would send. */
function percentEncode(text: string): string {
  return text
    .split(LONE_SURROGATE)
    .map(encodeURIComponent)
    .reduce((out, part, i, parts) => {
      if (i === parts.length - 1) return out + part;
      const c = text.match(LONE_SURROGATE)![i].charCodeAt(0);
      const bytes = [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)];
      return `${out}${part}${bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('')}`;
    }, '');
}

/** JSON with every character past ASCII escaped: what fits in a header value. */
const asciiJson = (value: unknown) =>
  JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

class Gen {
  readonly #r: () => number;
  constructor(seed: number, surface: number, n: number) {
    this.#r = prng(Math.imul(seed ^ Math.imul(surface + 1, 0x9e3779b1), 0x85ebca6b) ^ Math.imul(n + 1, 0xc2b2ae35));
  }
  float(): number {
    return this.#r();
  }
  int(max: number): number {
    return Math.floor(this.#r() * max);
  }
  chance(p: number): boolean {
    return this.#r() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  string(): string {
    switch (this.int(12)) {
      case 0:
        return '';
      case 1:
        return `nul\u0000inside`;
      case 2:
        return this.pick(['\ud800', '\udfff', 'a\ud83d', '\ude00b']);
      case 3:
        return 'x'.repeat(this.pick([256, 4_096, 70_000, 300_000]));
      case 4:
        return this.pick(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']);
      case 5:
        return this.pick(['🙂', 'ﷺ', '\u202eevil', 'é', '\r\n', '%00', '../..', '<script>', "' OR 1=1 --", '${x}']);
      case 6:
        return this.pick(['2026-01-01T00:00:00Z', 'not a date', '9999-99-99', '-1', '1e308', 'true', 'null']);
      default: {
        let s = '';
        const length = this.int(24);
        for (let i = 0; i < length; i++)
          s += String.fromCharCode(this.chance(0.8) ? 32 + this.int(95) : this.int(0x10000));
        return s;
      }
    }
  }
  number(): number {
    return this.pick([
      0,
      -0,
      1,
      -1,
      0.5,
      2 ** 31,
      2 ** 53 + 1,
      2 ** 63,
      1e308,
      -1e308,
      Number.MIN_VALUE,
      123456789012,
      this.float() * 1000,
      -this.int(1000),
    ]);
  }
  /** Random JSON of random depth and types. */
  json(depth = 0): unknown {
    const scalar = depth > 4 || this.chance(0.45);
    if (scalar)
      return this.pick<() => unknown>([() => null, () => this.chance(0.5), () => this.number(), () => this.string()])();
    if (this.chance(0.5)) return Array.from({ length: this.int(4) }, () => this.json(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = this.int(4); i > 0; i--) o[this.string().slice(0, 40)] = this.json(depth + 1);
    return o;
  }
  /** Arrays or objects nested `levels` deep, as JSON text (too deep to build with JSON.stringify). */
  deepText(): string {
    const levels = this.pick([50, 100, 101, 150, 2_300, 10_000]);
    return this.chance(0.5)
      ? `${'['.repeat(levels)}${']'.repeat(levels)}`
      : `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
  }
  /** A path segment: a plain id, a random string, or percent-escapes (NUL, invalid UTF-8, a lone surrogate's bytes). */
  segment(): string {
    return this.pick<() => string>([
      () => 'id-1',
      () => percentEncode(this.string().slice(0, 300)),
      () =>
        this.pick([
          '%00',
          'a%00b',
          '%ff',
          '%ED%A0%80',
          '%zz',
          '%',
          '%2F',
          '..',
          '.',
          '%2e%2e',
          'x'.repeat(5_000),
          '%C0%AF',
        ]),
      () => String(this.number()),
    ])();
  }
  /** A body: usually the template with fields replaced, added or removed; sometimes anything. */
  body(template: Record<string, unknown>): string {
    switch (this.int(8)) {
      case 0:
        return JSON.stringify(this.json());
      case 1: {
        const deep = this.deepText();
        const key = this.pick([...Object.keys(template), 'extra']);
        return JSON.stringify({ ...template, [key]: '__DEEP__' }).replace('"__DEEP__"', deep);
      }
      case 2:
        return this.pick(['', '{', 'null', '[]', '"text"', '{"a":1}x', '\u00ff', '{"a":NaN}', '1e999', 'true']);
      default: {
        const body: Record<string, unknown> = structuredClone(template);
        for (let i = 1 + this.int(3); i > 0; i--) {
          const key = this.chance(0.85) ? this.pick(Object.keys(template)) : this.string().slice(0, 30);
          if (this.chance(0.15)) delete body[key];
          else body[key] = this.json(1);
        }
        return JSON.stringify(body);
      }
    }
  }
  contentType(): string | undefined {
    return this.chance(0.85)
      ? 'application/json'
      : this.pick([
          undefined,
          'text/plain',
          'application/json; charset=latin1',
          'APPLICATION/JSON',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/jsonx',
          '*/*',
        ]);
  }
}

interface Case {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Written byte for byte on a socket: header values no HTTP client would send. */
  raw?: boolean;
}

interface Answer {
  /** The path the request reached (fetch resolves dot segments). */
  path: string;
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function send(base: string, c: Case): Promise<Answer> {
  if (c.raw) {
    const lines = Object.entries(c.headers).map(([name, value]) => `${name}: ${value}`);
    const a = await rawRequest(base, rawHttp(c.method, c.path, lines, c.body));
    if (a.status === 0) throw new Error(`closed without an answer: ${JSON.stringify(a.text.slice(0, 200))}`);
    return { path: c.path, status: a.status, headers: new Headers(a.headers), text: a.text, json: a.json };
  }
  // A request left unanswered is a finding too, not a suite that hangs.
  const res = await fetch(`${base}${c.path}`, {
    signal: AbortSignal.timeout(10_000),
    method: c.method,
    headers: c.headers,
    body: c.method === 'GET' || c.method === 'HEAD' ? undefined : c.body,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { path: new URL(res.url).pathname, status: res.status, headers: res.headers, text, json };
}

const shown = (c: Case) =>
  `${c.method} ${c.path.slice(0, 200)} ${JSON.stringify({ ...c.headers, ...(c.headers.authorization && !c.raw ? { authorization: '<…>' } : {}) }).slice(0, 400)} body=${(c.body ?? '').slice(0, 300)}`;
const describe = (c: Case, a: Answer) => `${shown(c)} -> ${a.status} ${a.text.slice(0, 300)}`;

interface SurfaceRun {
  cases: number;
  statuses: Record<number, number>;
  problems: string[];
}

/** Runs cases of one surface until the time is up; `check` returns what is wrong with an answer, if anything. */
async function fuzz<C extends Case>(
  t: Test,
  surface: number,
  base: string | ((c: C) => string),
  make: (g: Gen, n: number) => C,
  check: (c: C, a: Answer) => string | undefined,
  /** Cases run even when the time is up. */
  minCases = 0,
): Promise<SurfaceRun> {
  const run: SurfaceRun = { cases: 0, statuses: {}, problems: [] };
  const until = performance.now() + MS_PER_SURFACE;
  let next = 0;
  const worker = async () => {
    while (performance.now() < until || next < minCases) {
      const n = next++;
      const c = make(new Gen(SEED, surface, n), n);
      let a: Answer;
      try {
        a = await send(typeof base === 'string' ? base : base(c), c);
      } catch (err) {
        const cause = (err as Error & { cause?: Error }).cause;
        run.problems.push(
          `case ${n}: request failed (${(err as Error).message}${cause ? `: ${cause.message}` : ''}): ${shown(c)}`,
        );
        continue;
      }
      run.cases++;
      run.statuses[a.status] = (run.statuses[a.status] ?? 0) + 1;
      const problem = check(c, a);
      if (problem) run.problems.push(`case ${n}: ${problem}: ${describe(c, a)}`);
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  t.comment(`${run.cases} cases in ${MS_PER_SURFACE} ms, statuses ${JSON.stringify(run.statuses)}`);
  return run;
}

const GATEWAY_PATHS = ['/v1/chat/completions', '/v1/embeddings', '/v1/models'];

function gatewayCase(g: Gen): Case {
  const headers: Record<string, string> = {};
  const auth = g.int(10);
  if (auth < 7) headers.authorization = `Bearer ${TEST_KEY}`;
  else if (auth === 7) headers['api-key'] = TEST_KEY;
  else if (auth === 8)
    headers.authorization = g.pick([
      'Bearer',
      'Bearer ',
      'Basic eDp5',
      `Bearer ${TEST_KEY}x`,
      'bearer sk-nope',
      `Bearer ${'k'.repeat(5_000)}`,
    ]);
  const ct = g.contentType();
  if (ct) headers['content-type'] = ct;
  // Kept under Node's 16 KB header limit: fetch cannot read the 431 past it (the hostile-credentials run can).
  if (g.chance(0.2)) headers['svc-metadata'] = (g.chance(0.5) ? asciiJson(g.json()) : g.deepText()).slice(0, 8_000);
  if (g.chance(0.1)) headers['svc-tags'] = percentEncode(g.string().slice(0, 100));
  if (g.chance(0.1))
    headers.traceparent = g.pick([
      '00-zz-yy-01',
      '00-00000000000000000000000000000000-0000000000000000-01',
      g
        .string()
        .slice(0, 60)
        .replace(/[^\x20-\x7e]/g, ''),
    ]);
  if (g.chance(0.1))
    return {
      method: g.pick(['GET', 'POST', 'PUT', 'DELETE']),
      path: `/${Array.from({ length: 1 + g.int(3) }, () => g.segment()).join('/')}`,
      headers,
    };
  const path = g.pick(GATEWAY_PATHS);
  if (path === '/v1/models') return { method: g.pick(['GET', 'GET', 'POST']), path, headers };
  const template: Record<string, unknown> =
    path === '/v1/embeddings'
      ? { model: 'demo', input: 'hello', encoding_format: 'float', dimensions: 8 }
      : {
          model: 'demo',
          messages: [{ role: 'user', content: 'Hello' }],
          stream: false,
          max_tokens: 16,
          temperature: 0.5,
          tools: [],
          response_format: { type: 'text' },
          user: 'u',
          n: 1,
        };
  if (path === '/v1/chat/completions' && g.chance(0.3))
    template.messages = [{ role: g.pick(['user', 'system', 'assistant', 'tool', '']), content: g.json(1) }];
  if (path === '/v1/chat/completions' && g.chance(0.2)) template.stream = true;
  return { method: g.chance(0.95) ? 'POST' : g.pick(['GET', 'PATCH']), path, headers, body: g.body(template) };
}

function checkGateway(_c: Case, a: Answer): string | undefined {
  if (a.status === 500) return '500';
  if (a.path !== '/v1/models' && GATEWAY_PATHS.includes(a.path) && !a.headers.get('x-svc-request-id'))
    return 'no x-svc-request-id';
  if (a.status < 400) return undefined;
  const e = a.json?.error;
  if (
    !e ||
    typeof e.message !== 'string' ||
    e.param !== null ||
    typeof e.code !== 'string' ||
    Object.keys(a.json).length !== 1
  )
    return 'not the OpenAI error envelope with a code';
  if (e.type !== errorTypeForStatus(a.status)) return `type ${e.type} for status ${a.status}`;
  const documented = (GATEWAY_ERROR_STATUS as Record<string, number>)[e.code];
  if (documented !== a.status) return `code ${e.code} is not documented with status ${a.status}`;
  return undefined;
}

function restCase(g: Gen, key: CreatedApiKey): Case {
  const headers: Record<string, string> = {};
  const auth = g.int(10);
  if (auth < 8) headers.authorization = `Bearer ${key.secretKey}`;
  else if (auth === 8) headers.authorization = basicAuth(key);
  else headers.authorization = g.pick(['Bearer', 'Bearer pk-x', 'Basic %%%', `Bearer ${key.secretKey}0`, 'Token abc']);
  const ct = g.contentType();
  const id = () => (g.chance(0.3) ? 'id-1' : g.segment());
  const query = () =>
    g.chance(0.5)
      ? ''
      : `?${g.pick(['limit', 'offset', 'status', 'agent', 'startDate', 'endDate', g.string().slice(0, 10)])}=${percentEncode(g.chance(0.5) ? String(g.number()) : g.string().slice(0, 200))}`;
  const routes: [string, string, Record<string, unknown> | undefined][] = [
    ['POST', '/v1/traces', { name: 'run', input: 'question', metadata: { a: 1 }, tags: { team: 'x' } }],
    ['GET', `/v1/traces${query()}`, undefined],
    ['GET', `/v1/traces/${id()}`, undefined],
    ['PATCH', `/v1/traces/${id()}`, { output: 'answer', status: 'completed', metadata: { b: 2 } }],
    [
      'POST',
      `/v1/traces/${id()}/spans`,
      { name: 'step', parentId: null, startTime: '2026-01-01T00:00:00Z', attributes: { k: 'v' } },
    ],
    ['PATCH', `/v1/spans/${id()}`, { endTime: '2026-01-01T00:00:01Z', status: 'ok', output: { r: 1 } }],
    ['GET', '/v1/agents', undefined],
    [g.pick(['GET', 'POST', 'DELETE']), `/v1/${g.segment()}/${g.segment()}`, {}],
  ];
  const [method, path, template] = g.pick(routes);
  if (template === undefined || (method === 'GET' && g.chance(0.9))) return { method, path, headers };
  if (ct) headers['content-type'] = ct;
  return { method, path, headers, body: g.body(template) };
}

function checkRest(_c: Case, a: Answer): string | undefined {
  if (a.status === 500) return '500';
  // A path whose dot segments led out of /v1 is another surface's answer.
  if (!a.path.startsWith('/v1/')) return undefined;
  if (!a.headers.get('x-request-id')) return 'no x-request-id';
  if (a.status < 400) return undefined;
  const e = a.json?.error;
  if (
    !e ||
    typeof e.code !== 'string' ||
    typeof e.message !== 'string' ||
    typeof e.details !== 'object' ||
    e.details === null ||
    Object.keys(a.json).length !== 1
  ) {
    return 'not the REST error envelope {error:{code,message,details}}';
  }
  if ((REST_ERROR_STATUS as Record<string, number>)[e.code] !== a.status)
    return `code ${e.code} is not documented with status ${a.status}`;
  return undefined;
}

const PUBLIC_POSTS: [string, Record<string, unknown>][] = [
  [
    '/api/public/ingestion',
    {
      batch: [
        {
          id: 'e1',
          type: 'trace-create',
          timestamp: '2026-01-01T00:00:00Z',
          body: { id: 't1', name: 'fuzz', userId: 'u', sessionId: 's', tags: ['a'] },
        },
      ],
    },
  ],
  ['/api/public/scores', { traceId: 't1', name: 'quality', value: 1, comment: 'c' }],
  ['/api/public/datasets', { name: 'ds', description: 'd', metadata: {} }],
  ['/api/public/v2/datasets', { name: 'ds2' }],
  ['/api/public/dataset-items', { datasetName: 'ds', input: { q: 1 }, expectedOutput: 'a' }],
  ['/api/public/dataset-run-items', { runName: 'r', datasetItemId: 'i', traceId: 't1' }],
  ['/api/public/v2/prompts', { name: 'p', prompt: 'hi {{x}}', type: 'text', labels: ['production'], config: {} }],
  ['/api/public/models', { modelName: 'm', matchPattern: '(?i)^m$', unit: 'TOKENS', inputPrice: 0.1 }],
  ['/api/public/score-configs', { name: 'sc', dataType: 'NUMERIC', minValue: 0, maxValue: 1 }],
  ['/api/public/annotation-queues', { name: 'q', scoreConfigIds: [] }],
  ['/api/public/v1/gateway/keys', { agentId: 'a', modelGroups: ['demo'], expiresInHours: 1 }],
];
const PUBLIC_GETS = [
  '/api/public/traces/:id',
  '/api/public/observations/:id',
  '/api/public/sessions/:id',
  '/api/public/scores/:id',
  '/api/public/datasets/:id',
  '/api/public/v2/datasets/:id',
  '/api/public/dataset-items/:id',
  '/api/public/v2/prompts/:id',
  '/api/public/models/:id',
  '/api/public/score-configs/:id',
  '/api/public/annotation-queues/:id',
  '/api/public/datasets/:id/runs/:id',
  '/api/public/traces',
  '/api/public/observations',
  '/api/public/scores',
  '/api/public/projects',
  '/api/public/v2/observations',
  '/api/public/v2/prompts',
];

function publicCase(g: Gen, key: CreatedApiKey): Case {
  const headers: Record<string, string> = {};
  const auth = g.int(10);
  if (auth < 8) headers.authorization = basicAuth(key);
  else
    headers.authorization = g.pick([
      'Basic',
      `Bearer ${key.publicKey}`,
      'Basic Og==',
      basicAuth({ publicKey: key.publicKey, secretKey: 'wrong' }),
      'Basic ###',
    ]);
  if (g.chance(0.55)) {
    const [path, template] = g.pick(PUBLIC_POSTS);
    const ct = g.contentType();
    if (ct) headers['content-type'] = ct;
    return { method: 'POST', path, headers, body: g.body(template) };
  }
  if (g.chance(0.1))
    return { method: g.pick(['GET', 'POST', 'DELETE']), path: `/api/public/${g.segment()}/${g.segment()}`, headers };
  const path = g.pick(PUBLIC_GETS).replace(/:id/g, () => (g.chance(0.3) ? 'id-1' : g.segment()));
  const query = g.chance(0.4)
    ? `?${g.pick(['page', 'limit', 'name', 'userId', 'fromTimestamp', 'filter', 'tags', 'orderBy'])}=${percentEncode(g.chance(0.5) ? String(g.number()) : g.string().slice(0, 300))}`
    : '';
  return { method: 'GET', path: `${path}${query}`, headers };
}

function checkPublic(_c: Case, a: Answer): string | undefined {
  if (a.status === 500) return '500';
  if (!a.path.startsWith('/api/public/')) return undefined;
  if (a.status < 400) return undefined;
  if (typeof a.json?.message !== 'string') return 'no message field';
  return undefined;
}

/** Ends a credential's header line and starts another header: what header injection looks like. */
const CRLF_SPLIT = 'split\r\nx-injected: 1';
const SIGN_IN_PATH = '/dashboard/api/session';

/** Values that have broken credential checks elsewhere: bytes the HTTP parser refuses, sizes past its limit, SQL. */
const HOSTILE_VALUES = [
  '\u0000',
  'nul\u0000inside',
  'bare\rcr',
  'bare\nlf',
  CRLF_SPLIT,
  'k'.repeat(64 * 1024),
  'k'.repeat(15_000),
  "' OR '1'='1",
  "' OR 1=1 --",
  '"; DROP TABLE api_keys; --',
  "'; SELECT pg_sleep(30); --",
  "' || pg_sleep(30) || '",
  '1) OR pg_sleep(30)--',
  "'; SELECT pg_sleep(30)::text = '",
  '%',
  '_',
  '\\',
  "pk-lf-'",
];

interface HostileCase extends Case {
  surface: 'gateway' | 'rest' | 'public' | 'dashboard';
  /** False where the value only ends a valid credential's line and starts another header: a valid request. */
  mustRefuse: boolean;
}

/** Builds one surface's credentials around a hostile value, alone or after or before a valid credential. */
class HostileAuth {
  mustRefuse = true;
  readonly #g: Gen;
  constructor(g: Gen) {
    this.#g = g;
  }
  /** The hostile value `n` (each in turn), alone or around `valid`. */
  value(valid: string, n: number): string {
    const value = HOSTILE_VALUES[n % HOSTILE_VALUES.length];
    const form = this.#g.int(3);
    if (form === 1 && value === CRLF_SPLIT) this.mustRefuse = false;
    return form === 0 ? value : form === 1 ? `${valid}${value}` : `${value}${valid}`;
  }
}

const HOSTILE_SURFACES = 6;
/** Enough cases for every hostile value on every surface's credentials. */
const HOSTILE_CASES = HOSTILE_SURFACES * HOSTILE_VALUES.length;

/** Case n: credential place n mod 6 carrying hostile value n / 6, as a raw request. */
function hostileAuthCase(g: Gen, n: number, key: CreatedApiKey): HostileCase {
  const h = new HostileAuth(g);
  const hostileValue = (valid: string) => h.value(valid, Math.floor(n / HOSTILE_SURFACES));
  const chat = JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 });
  const json = { 'content-type': 'application/json' };
  const basic = (text: string) => `Basic ${Buffer.from(text, 'latin1').toString('base64')}`;
  const gateway = (headers: Record<string, string>): Case => ({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { ...json, ...headers },
    body: chat,
  });
  const pick = (): [HostileCase['surface'], Case] => {
    switch (n % HOSTILE_SURFACES) {
      case 0:
        return ['gateway', gateway({ authorization: `Bearer ${hostileValue(TEST_KEY)}` })];
      case 1:
        return ['gateway', gateway({ 'api-key': hostileValue(TEST_KEY) })];
      case 2:
        return [
          'rest',
          { method: 'GET', path: '/v1/traces', headers: { authorization: `Bearer ${hostileValue(key.secretKey)}` } },
        ];
      case 3: {
        const authorization = g.pick([
          () => basic(`${hostileValue(key.publicKey)}:${key.secretKey}`),
          () => basic(`${key.publicKey}:${hostileValue(key.secretKey)}`),
          () => `Basic ${hostileValue(basic(`${key.publicKey}:${key.secretKey}`).slice('Basic '.length))}`,
        ])();
        return ['public', { method: 'GET', path: '/api/public/traces', headers: { authorization } }];
      }
      case 4: {
        const credentials = g.chance(0.5)
          ? { email: hostileValue('owner@localhost'), password: 'not the password' }
          : { email: 'nobody@localhost', password: hostileValue('pw') };
        // In a JSON body the value is escaped: a sign-in that must fail whatever it holds.
        h.mustRefuse = true;
        return ['dashboard', { method: 'POST', path: SIGN_IN_PATH, headers: json, body: JSON.stringify(credentials) }];
      }
      default:
        return [
          'dashboard',
          { method: 'GET', path: SIGN_IN_PATH, headers: { cookie: `svc_session=${hostileValue('x')}` } },
        ];
    }
  };
  const [surface, c] = pick();
  return { ...c, raw: true, surface, mustRefuse: h.mustRefuse };
}

function checkDashboard(_c: Case, a: Answer): string | undefined {
  if (a.status === 500) return '500';
  if (a.status < 400) return undefined;
  const e = a.json?.error;
  if (!e || typeof e.code !== 'string' || typeof e.message !== 'string' || Object.keys(a.json).length !== 1)
    return 'not the dashboard error envelope {error:{code,message}}';
  // Fastify's framing refusals (413, 415) keep their status with code invalid_request (docs/dashboard.md).
  const documented = (DASHBOARD_ERROR_STATUS as Record<string, number>)[e.code];
  if (documented !== a.status && e.code !== 'invalid_request')
    return `code ${e.code} is not documented with status ${a.status}`;
  return undefined;
}

const HOSTILE_CHECKS = { gateway: checkGateway, rest: checkRest, public: checkPublic, dashboard: checkDashboard };

/** A hostile credential is refused in its surface's envelope; none is let through. */
function checkHostile(c: HostileCase, a: Answer): string | undefined {
  if (c.mustRefuse && a.status < 400) return `a hostile credential was let through (${c.surface})`;
  return HOSTILE_CHECKS[c.surface](c, a);
}

t.test(
  `fuzz: gateway, REST API, public API and every surface's credentials (seed ${SEED}, ${MS_PER_SURFACE} ms per surface)`,
  async (t) => {
    t.comment(`seed ${SEED} (SVC_FUZZ_SEED=${SEED} replays this run)`);
    const s: TestService = await startTestService(
      t,
      baseConfig({
        keys: [
          {
            alias: 'test',
            key: TEST_KEY,
            project: 'default',
            model_groups: ['demo'],
            rpm: 1_000_000,
            tpm: 1_000_000_000,
            budget_usd: 1_000_000,
          },
        ],
        plugins: [
          { use: 'auth' },
          { use: 'rate-limit' },
          { use: 'budget' },
          { use: 'cache' },
          { use: 'router' },
          { use: 'tracing' },
        ],
        api: { rate_limit: { requests_per_minute: 1_000_000, burst: 100_000 } },
      }),
    );
    const key = await createApiKey(s.service.db, {
      kind: 'project',
      organizationId: 'default',
      projectId: 'default',
      now: Date.now(),
    });

    const report = (t: Test, name: string, run: SurfaceRun) => {
      t.ok(run.cases > 0, `${name}: ${run.cases} cases ran`);
      t.same(
        run.problems.slice(0, 10),
        [],
        `${name}: every answer in the documented envelope, none a 500 (${run.problems.length} problems)`,
      );
    };

    await t.test('gateway', async (t) =>
      report(t, 'gateway', await fuzz(t, 0, s.gatewayUrl, gatewayCase, checkGateway)),
    );
    await t.test('REST API', async (t) =>
      report(t, 'REST API', await fuzz(t, 1, s.adminUrl, (g) => restCase(g, key), checkRest)),
    );
    await t.test('public API', async (t) =>
      report(t, 'public API', await fuzz(t, 2, s.adminUrl, (g) => publicCase(g, key), checkPublic)),
    );
    await t.test('hostile credentials on every surface', async (t) => {
      const base = (c: HostileCase) => (c.surface === 'gateway' ? s.gatewayUrl : s.adminUrl);
      const run = await fuzz(t, 3, base, (g, n) => hostileAuthCase(g, n, key), checkHostile, HOSTILE_CASES);
      report(t, 'hostile credentials', run);
    });
  },
);
