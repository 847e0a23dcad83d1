import t from 'tap';
import { baseConfig, chatBody, postJson, startTestService } from '../helpers/service.ts';

t.test('the demo group answers a chat completion with the x-svc headers', async (t) => {
  const { gatewayUrl } = await startTestService(t, baseConfig());
  const res = await postJson(gatewayUrl, '/v1/chat/completions', chatBody());
  t.equal(res.status, 200);
  const body = (await res.json()) as any;
  t.equal(body.object, 'chat.completion');
  t.match(body.choices[0].message.content, /You said: "Hello"/);
  t.ok(body.usage.total_tokens > 0);
  t.match(res.headers.get('x-svc-request-id'), /^[0-9a-f-]{36}$/);
  t.equal(res.headers.get('x-svc-model-group'), 'demo');
  t.equal(res.headers.get('x-svc-deployment'), 'demo-mock');
  t.equal(res.headers.get('x-svc-cost-estimated'), 'false');
  const cost = (body.usage.prompt_tokens * 0.15 + body.usage.completion_tokens * 0.6) / 1e6;
  t.equal(Number(res.headers.get('x-svc-cost')), Number(cost.toFixed(12)));
  const attempts = JSON.parse(res.headers.get('x-svc-attempts')!);
  t.match(attempts, [{ d: 'demo-mock', o: 'ok', ms: Number }]);
});
