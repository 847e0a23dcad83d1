// An organization unit's chain of ancestors: checked when the config loads, walked by the budget chain of a request.
import type { OrgUnitConfig } from './types.ts';

export type UnitChain = { ok: true; units: OrgUnitConfig[] } | { ok: false; reason: string };

/** The unit and its ancestors, nearest first; fails on an unknown unit, a unit of another project, or a cycle. */
export function unitChain(units: ReadonlyMap<string, OrgUnitConfig>, unitId: string, projectId: string): UnitChain {
  const chain: OrgUnitConfig[] = [];
  const seen = new Set<string>();
  for (let id: string | undefined = unitId; id !== undefined; id = units.get(id)?.parent) {
    const unit = units.get(id);
    if (!unit)
      return {
        ok: false,
        reason:
          chain.length === 0
            ? `unknown organization unit '${id}'`
            : `organization unit '${chain.at(-1)!.id}' has an unknown parent '${id}'`,
      };
    if (seen.has(id)) return { ok: false, reason: `organization units form a cycle through '${id}'` };
    if (unit.project !== projectId)
      return {
        ok: false,
        reason: `organization unit '${id}' belongs to project '${unit.project}', not '${projectId}'`,
      };
    seen.add(id);
    chain.push(unit);
  }
  return { ok: true, units: chain };
}
