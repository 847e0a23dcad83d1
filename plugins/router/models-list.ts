import type { ModelGroupRegistry, Principal } from '../../src/plugin-api/index.ts';

/** GET /v1/models: the groups the key may call, sorted by name (code-point order). */
export function listModels(principal: Principal | undefined, groups: ModelGroupRegistry) {
  const data = (principal?.modelGroups ?? [])
    .map((name) => groups.view(name))
    .filter((v) => v !== undefined)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((v) => ({ id: v.name, object: 'model', created: v.created, owned_by: v.ownedBy }));
  return { object: 'list', data };
}
