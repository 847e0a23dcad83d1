// rate-limit and budget listed one after the other, on the wire with counters in Redis: a served request costs one
// Lua script call to admit it against every rate limit and budget that applies, and one to settle them; a request a
// rate limit refuses costs one call and charges no budget. Commands are counted with MONITOR under the test's prefix.
// The plugins' decisions through the joint admission are tested in test/unit/plugins/admission-together.test.ts.
import t from 'tap';
import { roomInMinute } from '../helpers/gateways.ts';
import { commandKinds, monitorPrefix } from '../helpers/redis-monitor.ts';
import { redisTestPrefix, REDIS_URL } from '../helpers/redis.ts';
import { baseConfig, chatBody, startTestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

const KEY = 'sk-test-both-0123456789abcdef';
const PRICE = { input_per_mtok: 1000, output_per_mtok: 1000 };

t.test('one script call admits a request against its rate limits and budget, one settles them', async (t) => {
  const prefix = redisTestPrefix(t);
  const { service, gatewayUrl } = await startTestService(
    t,
    baseConfig({
      store: { redis_url: REDIS_URL, redis_prefix: prefix },
      model_groups: [
        { name: 'demo', deployments: [{ id: 'demo-mock', provider: 'mock', model: 'mock-small', price: PRICE }] },
      ],
      keys: [
        { alias: 'both', key: KEY, project: 'default', model_groups: ['demo'], rpm: 3, tpm: 100_000, budget_usd: 5 },
      ],
      plugins: [{ use: 'auth' }, { use: 'rate-limit' }, { use: 'budget' }, { use: 'router' }],
    }),
  );
  const monitor = await monitorPrefix(t, prefix);
  // The mark goes through the counters' own connection, after every command they sent before it.
  const sent = async () => monitor.sent((mark) => service.counters.readMarks([mark]));
  const chat = () =>
    fetch(`${gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify(chatBody({ max_tokens: 50 })),
    });
  const settledRequests = async () => {
    const r = await service.db.query<{ requests: unknown }>(
      "SELECT COALESCE(sum(requests), 0) AS requests FROM budget_spend WHERE budget_id = 'key:both:total'",
    );
    return Number(r.rows[0].requests);
  };
  await roomInMinute(5);

  // The first request also seeds the budget's counter from the ledger.
  const first = await chat();
  t.equal(first.status, 200);
  await first.arrayBuffer();
  await waitFor('the first request settled', async () => (await settledRequests()) === 1);
  await sent();

  const second = await chat();
  t.equal(second.status, 200);
  await second.arrayBuffer();
  // Settlement runs when the request ends, before its spend goes to the ledger.
  await waitFor('the second request settled', async () => (await settledRequests()) === 2);
  const commands = await sent();
  t.same(commandKinds(commands), ['script', 'script'], 'one call admits, one settles');
  const admission = commands[0].join(' ');
  for (const counter of [':rpm:k:', ':tpm:k:', ':budget:key:both:total'])
    t.ok(admission.includes(`${prefix}{p:default}${counter}`), `the admission holds ${counter}`);
  t.ok(commands[1].join(' ').includes(`${prefix}{p:default}:budget:key:both:total:total`), 'the settlement too');

  const third = await chat();
  t.equal(third.status, 200);
  await third.arrayBuffer();
  await waitFor('the third request settled', async () => (await settledRequests()) === 3);
  const [before] = await service.counters.readPeriods([
    { key: '{p:default}:budget:key:both:total', periodId: 'total' },
  ]);
  await sent();

  const refused = await chat();
  t.equal(refused.status, 429);
  t.match(await refused.json(), {
    error: { code: 'rate_limit_exceeded', message: /^Rate limit reached: key 'both' allows 3 requests per minute\./ },
  });
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after: the rest of the minute (${retryAfter} s)`);
  t.same(commandKinds(await sent()), ['script'], 'a refusal is one call, with nothing to settle');
  const [after] = await service.counters.readPeriods([{ key: '{p:default}:budget:key:both:total', periodId: 'total' }]);
  t.equal(after, before, 'the budget was not charged');
  t.equal(await settledRequests(), 3);
});
