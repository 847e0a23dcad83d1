// What the gateway decided about one call, read from its trace's metadata for the agent's trace page: the group it
// fell back from, the guardrails' verdicts (detector names and counts, never the matched text), redactions, the
// cache's answer, soft budget limits passed, usage it had to estimate. Keys as the gateway writes them.
const GOVERNANCE_KEYS = [
  'gateway.fallback_from',
  'gateway.cache',
  'gateway.redactions',
  'gateway.budget_soft_exceeded',
  'gateway.usage_estimated',
  'gateway.client_aborted',
];

export function governanceFacts(metadata: Record<string, unknown>): Record<string, unknown> {
  const facts: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(metadata))
    if (GOVERNANCE_KEYS.includes(k) || k.startsWith('guardrails.')) facts[k] = v;
  return facts;
}
