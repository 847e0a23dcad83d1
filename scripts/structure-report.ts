// The structure of the service's code (src/, admin/ but the dashboard front end, plugins/, examples/plugins/), as
// evidence anyone can rerun:
// - file-level import cycles (value and type imports: type-only ones tie modules together for a reader as much as
//   value ones do);
// - folder-level loops: modules collapsed into units (each src/<folder>/, plugins/<name>/ and admin/<folder>/, each
//   module directly in src/ or admin/), joined by value, type and lazy (`import('...')`) imports; a loop is a group of
//   units that all reach one another;
// - imports that run up a band: every unit is given a band in structure/bands.ts (ground, gateway, observability,
//   plugins, admin, runtime); imports into a higher band, or between gateway and observability, counted per unit pair;
// - plugin imports past the contract: modules of plugins/ and examples/ importing anything but src/plugin-api/index.ts
//   (`svc/plugin`) besides their own modules and packages;
// - per-chunk stream hooks: the plugins of gateway.yaml whose definition has onEvent or observeEvent (read from the
//   source: a hook returned only under some config counts; --touched tells which ones run);
// - the longest functions;
// - with --touched: the modules and folders one non-streamed chat request runs code in, measured in this process with
//   V8's precise coverage (see structure/touched.ts), and the per-chunk hooks one streamed request runs.
// --json prints all of it as one object (the unit test reads it).
//
//   node scripts/structure-report.ts [--top 15] [--json] [--touched] [--config FILE] [--root DIR]
// --config: the config whose plugins are read and started (default gateway.yaml, relative to the root; one that
// grants its key with ${SVC_DEMO_KEY} and a group `demo`). --root reads another tree laid out like this one (the
// unit test's fixtures).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bandCrossings, crossingTotals, unitBands } from './structure/bands.ts';
import { chunkHooks } from './structure/chunk-hooks.ts';
import { longestFunctions } from './structure/longest-functions.ts';
import { pluginContract } from './structure/plugin-contract.ts';
import { printReport } from './structure/print.ts';
import { readSourceGraph } from './structure/source-graph.ts';
import { touchedByOneChat } from './structure/touched.ts';
import { fileCycles, unitEdges, unitLoops } from './structure/units.ts';

const FOLDERS = ['src', 'admin', 'plugins', 'examples/plugins'];

const { values } = parseArgs({
  options: {
    top: { type: 'string', default: '15' },
    json: { type: 'boolean', default: false },
    touched: { type: 'boolean', default: false },
    root: { type: 'string', default: resolve(import.meta.dirname, '..') },
    config: { type: 'string', default: 'gateway.yaml' },
  },
});

const root = resolve(values.root);
const graph = readSourceGraph(root, FOLDERS);
const edges = unitEdges(graph.imports);
const crossings = bandCrossings(edges);
const bands = unitBands(graph.files);
const report = {
  root,
  files: graph.files.length,
  cycles: fileCycles(graph.files, graph.imports),
  unitLoops: unitLoops(graph.files, edges).map((units) => ({ size: units.length, units })),
  bands: {
    units: bands,
    unassigned: Object.keys(bands).filter((u) => bands[u] === 'unassigned'),
    crossings,
    totals: crossingTotals(crossings),
  },
  pluginContract: pluginContract(graph),
  chunkHooks: chunkHooks(graph, values.config),
  longestFunctions: longestFunctions(graph, Number(values.top)),
  touched: values.touched ? await touchedByOneChat(root, values.config) : undefined,
};
export type StructureReport = typeof report;

if (values.json) console.log(JSON.stringify(report, null, 2));
else printReport(report);
