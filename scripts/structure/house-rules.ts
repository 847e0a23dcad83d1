// The rules the suite holds the tree to (test/unit/house-rules.test.ts), each break as one line a reader can act on:
// - plugins (plugins/ and examples/plugins/) import nothing of svc but the contract, src/plugin-api/index.ts;
// - no import runs up a band or sideways: the ground (src/platform/, src/plugin-api/) imports no band above it, the
//   gateway and the observability service do not import each other, nothing imports the runtime;
// - every unit has a band, and no units import each other in a loop.
import { bandCrossings, unitBands } from './bands.ts';
import { pluginContract } from './plugin-contract.ts';
import { readSourceGraph } from './source-graph.ts';
import { unitEdges, unitLoops } from './units.ts';

export const HOUSE_FOLDERS = ['src', 'admin', 'plugins', 'examples/plugins'];

export function houseRuleBreaks(root: string): string[] {
  const graph = readSourceGraph(root, HOUSE_FOLDERS);
  const edges = unitEdges(graph.imports);
  const bands = unitBands(graph.files);
  return [
    ...pluginContract(graph).imports.map(
      (i) => `${i.from} imports ${i.to} (${i.kind}): a plugin imports only src/plugin-api/index.ts (svc/plugin)`,
    ),
    ...bandCrossings(edges).map(
      (c) => `${c.from} (${c.fromBand}) imports ${c.to} (${c.toBand}): ${c.count} import(s) run ${c.direction}`,
    ),
    ...Object.entries(bands)
      .filter(([, band]) => band === 'unassigned')
      .map(([unit]) => `${unit} has no band: name it in scripts/structure/bands.ts`),
    ...unitLoops(graph.files, edges).map((units) => `units import each other in a loop: ${units.join(', ')}`),
  ];
}
