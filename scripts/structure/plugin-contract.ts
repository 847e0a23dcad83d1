// Imports from plugins (built in under plugins/, custom under examples/) of anything but the plugin contract:
// src/plugin-api/index.ts in this repository, `svc/plugin` outside it. A plugin's own modules are its own business, and
// packages (node:, npm) are library code; another plugin or any other module of the service is a second door.
import type { ModuleImport, SourceGraph } from './source-graph.ts';
import { unitOf } from './units.ts';

export const CONTRACT = 'src/plugin-api/index.ts';

const isPlugin = (file: string) => file.startsWith('plugins/') || file.startsWith('examples/');
/** The list of built-ins (plugins/index.ts) names each built-in's entry module: that is the list, not a second door. */
const listsBuiltin = (i: ModuleImport) => i.from === 'plugins/index.ts' && /^plugins\/[^/]+\/index\.ts$/.test(i.to);

export interface PluginImport extends ModuleImport {
  /** The imported module is one the contract re-exports from: the name was reachable through the contract. */
  behindContract: boolean;
}

export interface PluginContractReport {
  /** Module imports past the contract (one per importing module, imported module and kind). */
  imports: PluginImport[];
  /** The distinct modules imported past the contract, and how many of them the contract does not re-export from. */
  modules: string[];
  modulesNotBehindContract: number;
  /** Per plugin unit, how many of its imports go past the contract. */
  perPlugin: Record<string, number>;
}

export function pluginContract(graph: SourceGraph): PluginContractReport {
  const behind = new Set(graph.imports.filter((i) => i.from === CONTRACT).map((i) => i.to));
  const imports = graph.imports
    .filter((i) => isPlugin(i.from) && i.to !== CONTRACT && unitOf(i.to) !== unitOf(i.from) && !listsBuiltin(i))
    .map((i) => ({ ...i, behindContract: behind.has(i.to) }));
  const modules = [...new Set(imports.map((i) => i.to))].sort();
  const perPlugin: Record<string, number> = {};
  for (const i of imports) perPlugin[unitOf(i.from)] = (perPlugin[unitOf(i.from)] ?? 0) + 1;
  return {
    imports,
    modules,
    modulesNotBehindContract: modules.filter((m) => !behind.has(m)).length,
    perPlugin,
  };
}
