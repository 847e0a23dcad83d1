// The modules one non-streamed chat request runs code in: the service started in this process with the repository's
// gateway.yaml (embedded store in a temporary folder, or DATABASE_URL's when set), V8's precise coverage on, one
// request to warm up, then exactly one POST /v1/chat/completions, counted from its arrival until its log phase is over
// and the writes it leaves for later are done (the trace batch, flushed every 50 ms; the metric rollups, every second).
// The service's timers tick meanwhile (the writers' journal, key and webhook polling): the functions that also run in
// a quiet moment of the same length with no request are not the request's. Work on worker threads is not seen (the inspector covers this thread).
// A streamed request after it tells which per-chunk hooks ran.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { unitOf } from './units.ts';

const TOP_FOLDERS = ['src/', 'plugins/', 'admin/'];
const CHUNK_HOOKS = new Set(['onEvent', 'observeEvent']);
/** The service's in-flight gauge, polled below to see the request's log phase end; not the request's own work. */
const IN_FLIGHT_PROBE = 'parts.metrics.inFlightNow';
/**
 * Longer than the service's slowest timer (rollup flush and webhook poll, 1 s): the request's writes are all done,
 * and the quiet moment of this length sees every timer tick.
 */
const SETTLE_MS = 1200;

export interface TouchedReport {
  config: string;
  /** Modules under src/, plugins/, admin/ with a function called during the measured request. */
  files: string[];
  /** Their folders (src/platform/store/repos/ apart from src/platform/store/), and their units (src/platform/store/ for both). */
  folders: string[];
  units: string[];
  /** Per-chunk plugin hooks that ran during one streamed chat request, as `module:function`. */
  chunkHooksRun: string[];
}

interface Coverage {
  file: string;
  functions: Profiler.FunctionCoverage[];
}

const functionId = (file: string, f: Profiler.FunctionCoverage) => `${file}:${f.ranges[0]!.startOffset}`;

/** The repository's modules in a coverage take: functions called since the last take, but those in `quiet`. */
function called(root: string, result: Profiler.ScriptCoverage[], quiet = new Set<string>()): Coverage[] {
  return result.flatMap((script) => {
    if (!script.url.startsWith('file:')) return [];
    const file = relative(root, fileURLToPath(script.url)).split('\\').join('/');
    if (!TOP_FOLDERS.some((t) => file.startsWith(t))) return [];
    const functions = script.functions.filter(
      (f) => f.ranges[0]!.count > 0 && f.functionName !== IN_FLIGHT_PROBE && !quiet.has(functionId(file, f)),
    );
    return functions.length > 0 ? [{ file, functions }] : [];
  });
}

interface ChatCall {
  gatewayUrl: string;
  key: string;
  inFlight(): number;
}

const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));

/** One chat request, answered and done: its hooks after the answer (onResponseEnd, onLog) and its writes too. */
async function chat({ gatewayUrl, key, inFlight }: ChatCall, content: string, stream: boolean): Promise<void> {
  const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content }], stream }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`chat request answered ${res.status}: ${text.slice(0, 300)}`);
  do await new Promise((r) => setImmediate(r));
  while (inFlight() > 0);
  await settle();
}

export async function touchedByOneChat(root: string, config = 'gateway.yaml'): Promise<TouchedReport> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // Before the service's modules load, so every function they define is counted from its first call.
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  const { startService } = (await import(
    pathToFileURL(join(root, 'src/runtime/service.ts')).href
  )) as typeof import('../../src/runtime/service.ts');
  const { silentLogger } = (await import(
    pathToFileURL(join(root, 'src/platform/telemetry/logger.ts')).href
  )) as typeof import('../../src/platform/telemetry/logger.ts');
  const dir = mkdtempSync(join(tmpdir(), 'structure-report-'));
  const key = `sk-structure-${randomBytes(12).toString('hex')}`;
  const service = await startService({
    configText: readFileSync(resolve(root, config), 'utf8'),
    baseDir: dir,
    env: { DATABASE_URL: process.env.DATABASE_URL ?? '', SVC_DEMO_KEY: key },
    host: '127.0.0.1',
    port: 0,
    adminPort: 0,
    watch: false,
    processMetrics: false,
    log: silentLogger,
  });
  try {
    const call = { gatewayUrl: service.gatewayUrl, key, inFlight: () => service.metrics.inFlightNow() };
    // Each request asks something new: the default config's cache would answer a repeated one from memory.
    const take = async (quiet?: Set<string>) =>
      called(root, (await session.post('Profiler.takePreciseCoverage')).result, quiet);
    await chat(call, 'Warm up, please.', false);
    // Its first writes are slow (the store's first statements): they are over before the quiet moment begins.
    await settle();
    await take();
    await settle();
    const quiet = new Set((await take()).flatMap((c) => c.functions.map((f) => functionId(c.file, f))));
    await chat(call, 'What is one request made of?', false);
    const touched = await take(quiet);
    await chat(call, 'And a streamed one?', true);
    const streamed = await take();
    const files = touched.map((c) => c.file).sort();
    return {
      config,
      files,
      folders: [...new Set(files.map((f) => `${dirname(f)}/`))].sort(),
      units: [...new Set(files.map(unitOf))].sort(),
      chunkHooksRun: streamed
        .filter((c) => c.file.startsWith('plugins/'))
        .flatMap((c) =>
          c.functions.filter((f) => CHUNK_HOOKS.has(f.functionName)).map((f) => `${c.file}:${f.functionName}`),
        )
        .sort(),
    };
  } finally {
    await session.post('Profiler.stopPreciseCoverage');
    session.disconnect();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
