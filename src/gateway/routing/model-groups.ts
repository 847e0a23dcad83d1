import type { ModelGroupConfig } from '../../platform/config/types.ts';
import type { LocalStateFile } from '../../platform/store/local-state.ts';
import type { ModelGroupRegistry, ModelGroupView } from '../../plugin-api/services.ts';

export function createModelGroupRegistry(
  groups: readonly ModelGroupConfig[],
  localState: LocalStateFile,
  nowMs: number,
): ModelGroupRegistry {
  localState.update((s) => {
    let changed = false;
    for (const g of groups) {
      if (g.created_at === undefined && s.model_groups_created[g.name] === undefined) {
        s.model_groups_created[g.name] = Math.floor(nowMs / 1000);
        changed = true;
      }
    }
    return changed;
  });
  const views = new Map<string, ModelGroupView>();
  for (const g of groups) {
    const created = g.created_at
      ? Math.floor(Date.parse(g.created_at) / 1000)
      : localState.state.model_groups_created[g.name];
    views.set(g.name, { name: g.name, created, ownedBy: g.owned_by ?? 'svc', config: g });
  }
  const get = (name: string) => views.get(name)?.config;
  return {
    get,
    view: (name) => views.get(name),
    chain: (group) => groupChain({ get }, group),
  };
}

function groupChain(registry: Pick<ModelGroupRegistry, 'get'>, group: ModelGroupConfig): ModelGroupConfig[] {
  const chain = [group];
  const seen = new Set([group.name]);
  let next = group.fallback;
  while (next !== undefined && !seen.has(next)) {
    const g = registry.get(next);
    if (!g) break;
    chain.push(g);
    seen.add(next);
    next = g.fallback;
  }
  return chain;
}
