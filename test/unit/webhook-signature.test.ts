// The x-svc-signature header: HMAC-SHA256 of the raw body (t is not signed, docs/webhooks.md), lowercase hex, t in Unix
// seconds; the docs' verifier accepts it and rejects stale t values, wrong secrets and altered bodies.
import { createHmac } from 'node:crypto';
import t from 'tap';
import {
  hmacHex,
  parseSignatureHeader,
  signatureHeader,
  verifySignature,
} from '../../src/observability/webhooks/signature.ts';
import { signWebhookBodies } from '../../src/observability/webhooks/webhook-sign-task.ts';
import { createWorkerPool } from '../../src/platform/workers/pool.ts';
import { WORKER_TASK_FILES } from '../../src/runtime/worker-tasks.ts';

const secret = 'whsec_test';
const body = '{"id":"e1","type":"prompt-version","prompt":{"name":"ä"}}';

t.test('HMAC-SHA256 of the raw body, lowercase hex', async (t) => {
  const hex = hmacHex(secret, body);
  t.equal(hex, createHmac('sha256', secret).update(Buffer.from(body, 'utf8')).digest('hex'));
  t.match(hex, /^[0-9a-f]{64}$/);
  t.same(signWebhookBodies({ secret, bodies: [body, 'x'] }), [hex, hmacHex(secret, 'x')]);
  t.equal(signatureHeader(1_700_000_000, hex), `t=1700000000,v1=${hex}`);
  t.same(parseSignatureHeader(`t=1700000000,v1=${hex}`), { t: 1_700_000_000, v1: [hex] });
  t.equal(parseSignatureHeader(`t=1700000000,v1=${hex.toUpperCase()}`), undefined, 'upper-case hex is not the format');
});

t.test('signing runs in the worker pool', async (t) => {
  const pool = createWorkerPool(WORKER_TASK_FILES, { maxThreads: 1 });
  t.teardown(() => pool.close());
  t.same(await pool.run('signWebhookBodies', { secret, bodies: [body] }), [hmacHex(secret, body)]);
});

t.test('the verifier of docs/webhooks.md', async (t) => {
  const now = 1_700_000_000;
  const header = signatureHeader(now, hmacHex(secret, body));
  t.same(verifySignature(secret, body, header, now), { ok: true });
  t.same(verifySignature(secret, body, header, now + 300), { ok: true }, 'at the 5-minute tolerance');
  t.same(verifySignature(secret, body, header, now + 301), { ok: false, reason: 'stale' }, 'one second past it');
  t.same(verifySignature('whsec_other', body, header, now), { ok: false, reason: 'mismatch' });
  t.same(
    verifySignature(secret, body + ' ', header, now),
    { ok: false, reason: 'mismatch' },
    'the raw body, byte for byte',
  );
  t.same(verifySignature(secret, body, `t=${now}`, now), { ok: false, reason: 'malformed' });
  // t is not signed: the same v1 with another t still matches the body, and staleness is what t is for.
  t.same(verifySignature(secret, body, signatureHeader(now - 10, hmacHex(secret, body)), now), { ok: true });
});
