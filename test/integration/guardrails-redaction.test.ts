// What a guardrail detector matched never reaches the store (issue 16, item 1), with the default gateway.yaml's policy
// (secrets and card numbers): a blocked prompt (inline and scanned in a worker thread), a flagged one, an answer
// carrying a secret (non-streamed: refused and never cached; streamed: delivered, verdict in the trace). Each trace
// is read back through the REST API, the public API (trace and observations), the dashboard's data route and the
// stored rows, and the service's own log lines are kept: the secret is in none of them, and `gateway.redactions`
// names the detector and the position of each match.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { parse } from 'yaml';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { jsonLogger } from '../../src/platform/telemetry/logger.ts';
import { ROOT } from '../helpers/cli.ts';
import { signIn } from '../helpers/dashboard.ts';
import { basicAuth } from '../helpers/public-api.ts';
import { bearer } from '../helpers/rest-api.ts';
import { baseConfig, postJson, startTestService, TEST_KEY } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const CARD = '4111 1111 1111 1111';
const CREATED = '2026-11-21T00:00:00Z';
const SECRETS = [AWS_KEY, CARD, CARD.replaceAll(' ', '')];

/** The guardrails policy and the plugin list of the repository's gateway.yaml. */
const defaults = parse(readFileSync(join(ROOT, 'gateway.yaml'), 'utf8')) as {
  plugins: { use: string; config?: any }[];
};
const shippedPolicy = defaults.plugins.find((p) => p.use === 'guardrails')!.config.policies[0];

const mockGroup = (name: string) => ({
  name,
  created_at: CREATED,
  deployments: [
    { id: `${name}-mock`, provider: 'mock', model: 'mock-small', price: { input_per_mtok: 1, output_per_mtok: 2 } },
  ],
});

t.test('what a guardrail matched is redacted before the trace is written', async (t) => {
  const policies = [
    { ...shippedPolicy, model_groups: ['demo'] },
    { ...shippedPolicy, name: 'watch', mode: 'flag', model_groups: ['flagged'] },
    { ...shippedPolicy, name: 'answers', check: { prompt: false, response: true }, model_groups: ['answers'] },
  ];
  t.match(
    shippedPolicy,
    { detectors: [{ type: 'secrets' }, { type: 'pii', entities: ['credit_card'] }] },
    'the shipped policy: secrets and card numbers',
  );
  const plugins = defaults.plugins.map((p) =>
    p.use === 'guardrails' ? { use: 'guardrails', config: { policies } } : p,
  );
  t.match(
    plugins.map((p) => p.use),
    ['auth', 'guardrails', 'rate-limit', 'budget', 'cache', 'router', 'tracing'],
  );
  const logs: string[] = [];
  const svc = await startTestService(
    t,
    baseConfig({
      model_groups: ['demo', 'flagged', 'answers'].map(mockGroup),
      keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['demo', 'flagged', 'answers'] }],
      plugins,
    }),
    { log: jsonLogger({}, (line) => logs.push(line), 'debug') },
  );
  const db = svc.service.db;
  const projectKey = await createApiKey(db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });
  const owner = await signIn(svc, 'owner@localhost', svc.service.firstOwner!.password);

  const chat = (model: string, messages: unknown[], extra: Record<string, unknown> = {}) =>
    postJson(svc.gatewayUrl, '/v1/chat/completions', { model, messages, ...extra });

  /** Every read of one trace: REST, public API trace and observations, dashboard, stored rows. */
  async function everyRead(id: string) {
    const rest: any = await waitFor(`trace ${id} stored`, async () => {
      const r = await fetch(`${svc.adminUrl}/v1/traces/${id}`, { headers: { authorization: bearer(projectKey) } });
      return r.status === 200 && r.json();
    });
    const auth = { authorization: basicAuth(projectKey) };
    const publicTrace = await (await fetch(`${svc.adminUrl}/api/public/traces/${id}`, { headers: auth })).json();
    const publicObservations = await (
      await fetch(`${svc.adminUrl}/api/public/observations?traceId=${id}`, { headers: auth })
    ).json();
    const dashboard = (await owner.call('GET', `/projects/default/traces/${id}`)).body;
    const rows = {
      trace: (await db.query('SELECT * FROM traces WHERE id = $1', [id])).rows,
      observations: (await db.query('SELECT * FROM observations WHERE trace_id = $1', [id])).rows,
    };
    return { rest, publicTrace, publicObservations, dashboard, rows };
  }

  /** The trace of a gateway answer, checked to hold no secret anywhere; answers its REST form with input and output parsed. */
  async function redactedTrace(t: Test, res: Response): Promise<any> {
    const id = res.headers.get('x-svc-request-id')!;
    const reads = await everyRead(id);
    t.equal(reads.rest.id, id);
    t.equal(reads.publicTrace.id, id);
    t.equal(reads.dashboard.id, id);
    t.equal(reads.rows.trace.length, 1);
    for (const [name, value] of Object.entries(reads)) {
      const text = JSON.stringify(value);
      for (const secret of SECRETS) t.notOk(text.includes(secret), `${name}: no ${secret}`);
    }
    t.same(
      reads.publicTrace.metadata['gateway.redactions'],
      reads.rest.metadata['gateway.redactions'],
      'the public API shows the same record',
    );
    // /v1 answers input and output as JSON text (docs/rest-api.md); the public API keeps the structured values.
    const input = JSON.parse(reads.rest.input);
    const output = reads.rest.output === null ? null : JSON.parse(reads.rest.output);
    t.same(input, reads.publicTrace.input, 'the REST input is the JSON text of the public API input');
    return { ...reads.rest, input, output };
  }

  t.test(
    'a blocked prompt with an AWS key: the trace input keeps the text around a marker, the record says where',
    async (t) => {
      const content = `my key is ${AWS_KEY}, thanks`;
      const res = await chat('demo', [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content },
      ]);
      t.equal(res.status, 400);
      t.match(await res.json(), { error: { code: 'guardrail_blocked', message: shippedPolicy.blocked_message } });
      const trace = await redactedTrace(t, res);
      t.same(trace.input, [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: 'my key is [REDACTED:secrets.aws_access_key], thanks' },
      ]);
      const start = content.indexOf(AWS_KEY);
      t.same(trace.metadata['gateway.redactions'], [
        {
          detector: 'secrets.aws_access_key',
          where: 'prompt',
          path: 'messages[1].content',
          start,
          end: start + AWS_KEY.length,
        },
      ]);
      t.same(trace.metadata['guardrails.blocked'], [
        { policy: 'no-secrets', detector: 'secrets.aws_access_key', where: 'prompt', count: 1 },
      ]);
    },
  );

  t.test('a blocked card number in a text part, and a long prompt scanned in a worker thread', async (t) => {
    const res = await chat('demo', [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hello' },
          { type: 'text', text: `pay with ${CARD} today` },
        ],
      },
    ]);
    t.equal(res.status, 400);
    const trace = await redactedTrace(t, res);
    t.same(trace.input[0].content[1], { type: 'text', text: 'pay with [REDACTED:pii.credit_card] today' });
    t.same(trace.metadata['gateway.redactions'], [
      {
        detector: 'pii.credit_card',
        where: 'prompt',
        path: 'messages[0].content[1].text',
        start: 9,
        end: 9 + CARD.length,
      },
    ]);

    const filler = 'lorem ipsum dolor sit amet '.repeat(2600);
    t.ok(filler.length >= 65_536, 'past worker_threshold_chars');
    const long = await chat('demo', [{ role: 'user', content: `${filler}${AWS_KEY} and ${CARD}` }]);
    t.equal(long.status, 400);
    const longTrace = await redactedTrace(t, long);
    t.equal(longTrace.input[0].content, `${filler}[REDACTED:secrets.aws_access_key] and [REDACTED:pii.credit_card]`);
    t.same(longTrace.metadata['gateway.redactions'], [
      {
        detector: 'secrets.aws_access_key',
        where: 'prompt',
        path: 'messages[0].content',
        start: filler.length,
        end: filler.length + AWS_KEY.length,
      },
      {
        detector: 'pii.credit_card',
        where: 'prompt',
        path: 'messages[0].content',
        start: filler.length + AWS_KEY.length + 5,
        end: filler.length + AWS_KEY.length + 5 + CARD.length,
      },
    ]);
  });

  t.test('a flagged prompt goes through; the answer echoing it is redacted in the trace too', async (t) => {
    const res = await chat('flagged', [{ role: 'user', content: `use ${AWS_KEY}` }]);
    t.equal(res.status, 200);
    const body = (await res.json()) as any;
    t.match(body.choices[0].message.content, AWS_KEY, 'flag mode: the caller gets its answer as it came');
    const trace = await redactedTrace(t, res);
    t.equal(trace.status, 'completed');
    t.equal(trace.input[0].content, 'use [REDACTED:secrets.aws_access_key]');
    t.match(trace.output.content, /You said: "use \[REDACTED:secrets\.aws_access_key\]"/);
    t.same(trace.metadata['gateway.redactions'], [
      { detector: 'secrets.aws_access_key', where: 'prompt', path: 'messages[0].content', start: 4, end: 24 },
    ]);
    t.same(trace.metadata['guardrails.flagged'], [
      { policy: 'watch', detector: 'secrets.aws_access_key', where: 'prompt', count: 1 },
    ]);
  });

  t.test('an answer carrying a secret is refused, redacted in the trace and never cached', async (t) => {
    const messages = [{ role: 'user', content: `repeat ${AWS_KEY}` }];
    const res = await chat('answers', messages);
    t.equal(res.status, 400);
    t.match(await res.json(), { error: { code: 'guardrail_blocked' } });
    const trace = await redactedTrace(t, res);
    t.equal(
      trace.input[0].content,
      'repeat [REDACTED:secrets.aws_access_key]',
      'the unchecked prompt holds the same text: replaced too',
    );
    const answer = trace.metadata['gateway.redactions'];
    t.equal(answer.length, 1);
    t.match(answer[0], { detector: 'secrets.aws_access_key', where: 'response', path: 'choices[0].message.content' });
    const again = await chat('answers', messages);
    t.equal(again.status, 400, 'the refused answer was not stored: the same request is refused again, not a cache hit');
    t.equal(again.headers.get('x-svc-cache'), null);
    await again.arrayBuffer();
  });

  t.test('a streamed answer carrying a secret: delivered, verdict and redaction in the trace', async (t) => {
    const res = await chat('answers', [{ role: 'user', content: `stream ${AWS_KEY} back` }], { stream: true });
    t.equal(res.status, 200);
    const text = await res.text();
    t.match(text, AWS_KEY, 'a stream cannot be refused once it started');
    const trace = await redactedTrace(t, res);
    t.match(trace.output, {
      role: 'assistant',
      content: /You said: "stream \[REDACTED:secrets\.aws_access_key\] back"/,
    });
    t.match(trace.metadata['guardrails.stream_verdict'], {
      verdict: 'violation',
      findings: [{ policy: 'answers', detector: 'secrets.aws_access_key', count: 1 }],
    });
    // Nothing before the marker changed, so it starts where the key did.
    const start = (trace.output.content as string).indexOf('[REDACTED:');
    t.same(trace.metadata['gateway.redactions'], [
      {
        detector: 'secrets.aws_access_key',
        where: 'response',
        path: 'choices[0].message.content',
        start,
        end: start + AWS_KEY.length,
      },
    ]);
  });

  t.test("the service's log lines hold none of it", async (t) => {
    for (const secret of SECRETS) t.notOk(logs.join('').includes(secret), `no ${secret} in ${logs.length} log lines`);
  });
});
