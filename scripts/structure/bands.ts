// The bands the units belong to, and the imports that run up a band. A unit may import its own band and the bands
// ranked below it; an import into a higher band runs up, one into another band of the same rank runs sideways (the
// gateway and the observability service stay apart). The runtime ranks highest: nothing else may import it.
import { noImports, unitOf, type KindCounts, type UnitEdge } from './units.ts';

interface Band {
  name: string;
  rank: number;
  /** Units of src/ by name; `prefixes` take every unit below a top folder. */
  units: string[];
  prefixes?: string[];
}

export const BANDS: Band[] = [
  {
    name: 'ground',
    rank: 0,
    units: [
      // The modules directly in platform/: the clock and the network ranges.
      'src/platform/',
      'src/platform/config/',
      'src/platform/errors/',
      'src/platform/telemetry/',
      'src/platform/validation/',
      // Prices and token estimates: read by the gateway (cost of a call) and by ingestion (cost of a generation).
      'src/platform/pricing/',
      'src/platform/store/',
      'src/platform/workers/',
      // The key that encrypts stored LLM-connection secrets, and the box that uses it.
      'src/platform/secrets/',
      // The OpenAI wire shapes: the contract's words for bodies, chunks and usage.
      'src/platform/openai/',
      'src/plugin-api/',
    ],
  },
  {
    name: 'gateway',
    rank: 1,
    units: [
      'src/gateway/server/',
      'src/gateway/pipeline/',
      'src/gateway/providers/',
      'src/gateway/routing/',
      'src/gateway/keys/',
      // The gateway's own traces of its calls (trace writer, OTLP export), not the ingestion of SDK traces.
      'src/gateway/tracing/',
      'src/gateway/budget/',
      'src/gateway/stream/',
    ],
  },
  {
    name: 'observability',
    rank: 1,
    units: [
      'src/observability/ingestion/',
      'src/observability/prompts/',
      'src/observability/webhooks/',
      'src/observability/users/',
      'src/observability/scores/',
      'src/observability/agents/',
      'src/observability/api-keys/',
      'src/observability/automations/',
      'src/observability/llm-connections/',
      // The metric windows and the queries over the rollups (the gateway's trace writer keeps them).
      'src/observability/metrics/',
    ],
  },
  // The built-in plugins and the example custom plugin: their only door is the contract (see plugin-contract.ts).
  { name: 'plugins', rank: 2, units: [], prefixes: ['plugins/', 'examples/'] },
  { name: 'admin', rank: 2, units: [], prefixes: ['admin/'] },
  {
    name: 'runtime',
    rank: 3,
    // `control`: the operator's store commands and the control socket a running service answers them on.
    units: ['src/runtime/', 'src/runtime/control/'],
  },
];

const byName = new Map(BANDS.map((b) => [b.name, b]));

/** The band of a unit; `unassigned` for a folder the table does not name yet. */
export function bandOf(unit: string): string {
  const band = BANDS.find((b) => b.units.includes(unit) || b.prefixes?.some((p) => unit.startsWith(p)));
  return band?.name ?? 'unassigned';
}

/** `up`, `sideways` or undefined when the import is allowed. */
function direction(from: string, to: string): 'up' | 'sideways' | undefined {
  if (from === to) return undefined;
  const a = byName.get(from);
  const b = byName.get(to);
  if (!a || !b || b.rank < a.rank) return undefined;
  return b.rank > a.rank ? 'up' : 'sideways';
}

export interface BandCrossing extends UnitEdge {
  fromBand: string;
  toBand: string;
  direction: 'up' | 'sideways';
  /** Module imports in this pair, all kinds. */
  count: number;
}

export const total = (k: KindCounts) => k.value + k.type + k.lazy;

/** Unit pairs whose imports run up or sideways, most imports first. */
export function bandCrossings(edges: UnitEdge[]): BandCrossing[] {
  return edges
    .flatMap((e) => {
      const fromBand = bandOf(e.from);
      const toBand = bandOf(e.to);
      const d = direction(fromBand, toBand);
      return d ? [{ ...e, fromBand, toBand, direction: d, count: total(e.imports) }] : [];
    })
    .sort((a, b) => b.count - a.count || a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** Every unit with its band, the unassigned ones included. */
export function unitBands(files: string[]): Record<string, string> {
  const units = [...new Set(files.map(unitOf))].sort();
  return Object.fromEntries(units.map((u) => [u, bandOf(u)]));
}

export function crossingTotals(crossings: BandCrossing[]): KindCounts & { imports: number; pairs: number } {
  const kinds = noImports();
  for (const c of crossings) for (const k of ['value', 'type', 'lazy'] as const) kinds[k] += c.imports[k];
  return { ...kinds, imports: total(kinds), pairs: crossings.length };
}
