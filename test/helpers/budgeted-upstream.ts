// One key with a total budget in front of one priced upstream, for tests of what a request is charged: the service,
// a chat request through it, and what the spend ledger and the live budget counter hold for the key.
import { PRICE, key, ledgerSpend } from './budget-fixtures.ts';
import { baseConfig, chatBody, openaiDeployment, startTestService, type TestService } from './service.ts';
import { waitFor } from './wait-for.ts';

/** The service: key `alias` (budget $5) on model group `up`, one deployment at `upUrl` priced at PRICE. */
export function startBudgetedService(
  t: Parameters<typeof startTestService>[0],
  alias: string,
  upUrl: string,
): Promise<TestService> {
  return startTestService(
    t,
    baseConfig({
      model_groups: [{ name: 'up', deployments: [openaiDeployment('priced-up', upUrl, { price: PRICE })] }],
      keys: [{ alias, key: key(alias), project: 'default', model_groups: ['up'], budget_usd: 5 }],
      plugins: [{ use: 'auth' }, { use: 'budget' }, { use: 'router' }, { use: 'tracing' }],
    }),
  );
}

/** A "Hello" chat of at most 100 output tokens to group `up`, as key `alias`. */
export function chatAs(svc: TestService, alias: string, stream: boolean): Promise<Response> {
  return fetch(`${svc.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key(alias)}` },
    body: JSON.stringify(chatBody({ model: 'up', stream, max_tokens: 100 })),
  });
}

/**
 * Nano-USD of the key's one request once the ledger has its row, and what the live counter of the key's total
 * budget holds then.
 */
export async function settledSpend(
  svc: TestService,
  alias: string,
): Promise<{ ledger: number; counter: number | null }> {
  const budgetId = `key:${alias}:total`;
  const ledger = await waitFor('the spend settled in the ledger', async () => {
    const l = await ledgerSpend(svc.service.db, budgetId);
    return l.requests === 1 ? l : undefined;
  });
  const [counter] = await svc.service.counters.readPeriods([
    { key: `{p:default}:budget:${budgetId}`, periodId: 'total' },
  ]);
  return { ledger: ledger.nano, counter };
}
