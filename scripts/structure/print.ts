// The report as text for a reader; --json prints the same facts whole.
import type { StructureReport } from '../structure-report.ts';
import type { KindCounts } from './units.ts';

const kinds = (k: KindCounts) =>
  (['value', 'type', 'lazy'] as const)
    .filter((n) => k[n] > 0)
    .map((n) => `${k[n]} ${n}`)
    .join(', ');

export function printReport(report: StructureReport): void {
  const { bands, pluginContract: contract, chunkHooks: hooks, touched } = report;
  console.log(`${report.files} modules in src/, admin/, plugins/, examples/plugins/ (the dashboard front end apart)`);

  console.log(`\nfile import cycles: ${report.cycles.length} (files in them: ${report.cycles.flat().length})`);
  for (const group of report.cycles) console.log(`  ${group.length} files: ${group.join(', ')}`);

  const inLoops = report.unitLoops.map((l) => l.size);
  console.log(
    `\nunit loops (value, type and lazy imports): ${inLoops.length}, units in them: ${inLoops.join('/') || 0}`,
  );
  for (const loop of report.unitLoops) console.log(`  ${loop.size} units: ${loop.units.join(', ')}`);

  const t = bands.totals;
  console.log(`\nimports that run up a band: ${t.imports} (${kinds(t)}) in ${t.pairs} unit pairs`);
  if (bands.unassigned.length) console.log(`  units without a band: ${bands.unassigned.join(', ')}`);
  for (const c of bands.crossings)
    console.log(
      `  ${String(c.count).padStart(3)}  ${c.direction.padEnd(8)} ${c.from} (${c.fromBand}) -> ${c.to} (${c.toBand})  [${kinds(c.imports)}]`,
    );

  console.log(
    `\nplugin imports past the contract: ${contract.imports.length}, of ${contract.modules.length} modules ` +
      `(${contract.modulesNotBehindContract} of them not re-exported by the contract either)`,
  );
  for (const [plugin, n] of Object.entries(contract.perPlugin)) console.log(`  ${String(n).padStart(3)}  ${plugin}`);
  for (const i of contract.imports)
    console.log(`       ${i.from} -> ${i.to} (${i.kind}${i.behindContract ? ', re-exported by the contract' : ''})`);

  console.log(
    `\nplugins of ${hooks.config} with a per-chunk stream hook: ${hooks.withChunkHook.length} of ${hooks.plugins.length}`,
  );
  for (const h of hooks.withChunkHook) console.log(`  ${h.plugin}: ${h.hook} (${h.where})`);

  console.log(`\nlongest functions:`);
  for (const f of report.longestFunctions) console.log(`  ${String(f.lines).padStart(4)} lines  ${f.name}  ${f.where}`);

  if (!touched) return;
  console.log(
    `\none non-streamed chat (${touched.config}): ${touched.files.length} modules in ${touched.folders.length} folders ` +
      `(${touched.units.length} units)`,
  );
  for (const f of touched.files) console.log(`  ${f}`);
  console.log(`per-chunk hooks run by one streamed chat: ${touched.chunkHooksRun.length}`);
  for (const h of touched.chunkHooksRun) console.log(`  ${h}`);
}
