// Modules collapsed into units, the size a reader thinks in: each folder of a band (`src/platform/store/`,
// `src/gateway/router/`), each other folder under a top folder (`src/plugin-api/`, `plugins/router/`, `admin/scim/`),
// the modules directly in a band folder (`src/runtime/`), and a module directly in a top folder is its own.
import { loopsOf } from './components.ts';
import type { ImportKind, ModuleImport } from './source-graph.ts';

/** The folders of src/ that hold a band's folders rather than modules of one unit. */
const BAND_FOLDERS = ['platform', 'gateway', 'observability', 'runtime'];

export function unitOf(file: string): string {
  const [top, second, third, ...rest] = file.split('/');
  if (top === 'src' && BAND_FOLDERS.includes(second!) && rest.length > 0) return `src/${second}/${third}/`;
  return third !== undefined ? `${top}/${second}/` : file;
}

export type KindCounts = Record<ImportKind, number>;

export interface UnitEdge {
  from: string;
  to: string;
  /** Module imports from one unit into the other, by kind. */
  imports: KindCounts;
}

export const noImports = (): KindCounts => ({ value: 0, type: 0, lazy: 0 });

/** Imports between different units, counted per pair of units and kind. */
export function unitEdges(imports: ModuleImport[]): UnitEdge[] {
  const edges = new Map<string, UnitEdge>();
  for (const i of imports) {
    const from = unitOf(i.from);
    const to = unitOf(i.to);
    if (from === to) continue;
    const key = `${from} ${to}`;
    const edge = edges.get(key) ?? { from, to, imports: noImports() };
    edge.imports[i.kind]++;
    edges.set(key, edge);
  }
  return [...edges.values()];
}

/** The units that reach one another through imports of any kind (loops of two or more units). */
export function unitLoops(files: string[], edges: UnitEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const units = [...new Set(files.map(unitOf))];
  return loopsOf(units, (u) => next.get(u) ?? []);
}

/** File-level cycles: modules that reach one another through value and type imports (not lazy ones). */
export function fileCycles(files: string[], imports: ModuleImport[]): string[][] {
  const next = new Map<string, string[]>();
  for (const i of imports) if (i.kind !== 'lazy') next.set(i.from, [...(next.get(i.from) ?? []), i.to]);
  return loopsOf(files, (f) => next.get(f) ?? []);
}
