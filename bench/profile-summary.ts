// Summarises a V8 .cpuprofile (from `npm run bench -- --profile gateway`): where the busy time went, by
// area (project files, undici, node internals, GC ...), by function (self time), and the project's own
// functions with their inclusive time (everything they called). Percentages are of non-idle samples.
//
//   node bench/profile-summary.ts <file.cpuprofile> [--top 25] [--requests N]
// With --requests (the number of requests the process answered, printed by the bench), times are also
// shown in microseconds per request.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isProject, shortUrl, type CallFrame, type Profile, type ProfileNode } from './cpu-profile.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, requests: { type: 'string' } },
});
if (positionals.length !== 1) {
  console.error('usage: node bench/profile-summary.ts <file.cpuprofile> [--top 25] [--requests N]');
  process.exit(2);
}
const TOP = Number(values.top);
const REQUESTS = values.requests ? Number(values.requests) : undefined;
const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile;

const nameOf = (cf: CallFrame) =>
  `${shortUrl(cf.url) || '(native)'}:${cf.functionName || '(anonymous)'}:${cf.lineNumber + 1}`;
const areaOf = (cf: CallFrame): string => {
  const url = shortUrl(cf.url);
  if (!url) return cf.functionName.startsWith('(') ? cf.functionName : '(native / builtins)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `node_modules/${pkg[1]}`;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[1] ?? url.slice(5)}`;
  if (url.startsWith('src/') || url.startsWith('plugins/') || url.startsWith('bench/')) return url;
  return url;
};

const byId = new Map<number, ProfileNode>();
const parent = new Map<number, number>();
for (const n of profile.nodes) {
  byId.set(n.id, n);
  for (const c of n.children ?? []) parent.set(c, n.id);
}

const self = new Map<string, number>();
const area = new Map<string, number>();
const inclusive = new Map<string, number>();
/** Each sample charged to the nearest project function on its stack (its own code plus library code it called). */
const nearest = new Map<string, number>();
let busy = 0;
let idle = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  const node = byId.get(profile.samples[i])!;
  if (node.callFrame.functionName === '(idle)') {
    idle += dt;
    continue;
  }
  busy += dt;
  self.set(nameOf(node.callFrame), (self.get(nameOf(node.callFrame)) ?? 0) + dt);
  area.set(areaOf(node.callFrame), (area.get(areaOf(node.callFrame)) ?? 0) + dt);
  const seen = new Set<string>();
  let charged = false;
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const cf = byId.get(id)!.callFrame;
    if (!isProject(cf)) continue;
    const name = nameOf(cf);
    if (!charged) {
      nearest.set(name, (nearest.get(name) ?? 0) + dt);
      charged = true;
    }
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
  }
  if (!charged) {
    const key = `(outside project code) ${areaOf(node.callFrame)}`;
    nearest.set(key, (nearest.get(key) ?? 0) + dt);
  }
}

const pct = (v: number) =>
  `${((100 * v) / busy).toFixed(1).padStart(5)}%` +
  (REQUESTS ? `  ${(v / REQUESTS).toFixed(2).padStart(6)} µs/req` : '');
const print = (title: string, m: Map<string, number>, n: number) => {
  console.log(`\n${title}`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`  ${pct(v)}  ${k}`);
};
console.log(
  `${positionals[0]}: busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms` +
    (REQUESTS ? `, ${(busy / REQUESTS).toFixed(1)} µs busy per request` : ''),
);
print('By area (self time):', area, TOP);
print('By function (self time):', self, TOP);
print(
  'Project functions (inclusive time, src/ and plugins/; async functions only count from their last resumption):',
  inclusive,
  TOP,
);
print('Each sample charged to the nearest project function on its stack, else to the area it ran in:', nearest, TOP);
