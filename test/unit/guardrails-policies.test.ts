// How guardrail policies decide (plugins/guardrails/): which policies cover a request, built-in detectors before
// services (and no service call once a block policy has found something), which refusal wins, what lands in
// ctx.annotations (names and counts, never the matched text) and in ctx.redactions (each match's field and offsets),
// the stream verdict, and the bounded stream text kept per choice.
import t from 'tap';
import { Agent } from 'undici';
import { requestText } from '../../plugins/guardrails/detectors/checked-text.ts';
import { DetectionUnavailable } from '../../plugins/guardrails/detectors/detection-http.ts';
import type { Finding, RemoteDetector } from '../../plugins/guardrails/detectors/types.ts';
import { GatewayError } from '../../src/platform/errors/gateway-error.ts';
import type { RequestContext } from '../../src/plugin-api/contract.ts';
import { createWorkerPool } from '../../src/platform/workers/pool.ts';
import { WORKER_TASK_FILES } from '../../src/runtime/worker-tasks.ts';
import type { PolicyConfig } from '../../plugins/guardrails/config.ts';
import { evaluate } from '../../plugins/guardrails/evaluate.ts';
import { localScan } from '../../plugins/guardrails/local-scan.ts';
import { compilePolicies, policiesFor, type Policy } from '../../plugins/guardrails/policies.ts';
import { recordRedactions } from '../../plugins/guardrails/redactions.ts';
import { enforce, recordStreamVerdict } from '../../plugins/guardrails/verdicts.ts';

const dispatcher = new Agent();
t.teardown(() => dispatcher.close());
const pool = createWorkerPool(WORKER_TASK_FILES, { maxThreads: 1 });
t.teardown(() => pool.close());
const inline = localScan(pool, Infinity);

const CARD = '4111 1111 1111 1111';

function policyConfig(name: string, extra: Partial<PolicyConfig> = {}): PolicyConfig {
  return {
    name,
    detectors: [{ type: 'pii', entities: ['credit_card', 'email'] }],
    mode: 'block',
    blocked_message: `blocked by ${name}`,
    fail_closed: false,
    timeout_ms: 1000,
    check: { prompt: true, response: true },
    ...extra,
  };
}

const compile = (...policies: PolicyConfig[]) => compilePolicies({ services: {}, policies }, dispatcher);

/** A service answering with fixed findings, or failing with a reason; counts its calls. */
function service(name: string, answer: Finding[] | string): RemoteDetector & { calls: number } {
  return {
    service: name,
    calls: 0,
    async check() {
      this.calls++;
      if (typeof answer === 'string') throw new DetectionUnavailable(answer);
      return answer;
    },
  };
}

const withServices = (p: Policy, ...remote: RemoteDetector[]): Policy => ({ ...p, remote });
const context = () => ({ annotations: {} as Record<string, unknown>, redactions: [] }) as unknown as RequestContext;

t.test('policiesFor: projects and model groups scope a policy; omitted means all', async (t) => {
  const policies = compile(
    policyConfig('everywhere'),
    policyConfig('project-a', { projects: ['a'] }),
    policyConfig('group-g', { model_groups: ['g'] }),
    policyConfig('a-and-g', { projects: ['a'], model_groups: ['g', 'h'] }),
  );
  const names = (project?: string, group?: string) => policiesFor(policies, project, group).map((p) => p.name);
  t.same(names('a', 'g'), ['everywhere', 'project-a', 'group-g', 'a-and-g']);
  t.same(names('a', 'h'), ['everywhere', 'project-a', 'a-and-g']);
  t.same(names('b', 'g'), ['everywhere', 'group-g']);
  t.same(names('b', 'x'), ['everywhere']);
  t.same(names(undefined, undefined), ['everywhere'], 'no principal or group yet: only unscoped policies');
});

t.test('evaluate: built-in detectors, then services; none asked after a block finding or for empty text', async (t) => {
  const [block, flag] = compile(policyConfig('block'), policyConfig('flag', { mode: 'flag' }));
  const s1 = service('s1', [{ detector: 's1.violence', count: 1, matches: [] }]);
  const s2 = service('s2', 'timeout');
  const policies = [withServices(block, s1), withServices(flag, s2)];

  const clean = await evaluate(policies, 'hello', inline);
  t.same(
    clean.map((v) => [v.policy.name, v.findings, v.unavailable]),
    [
      ['block', [{ detector: 's1.violence', count: 1, matches: [] }], []],
      ['flag', [], [{ service: 's2', reason: 'timeout' }]],
    ],
  );
  t.same([s1.calls, s2.calls], [1, 1]);

  const violating = await evaluate(policies, `card ${CARD}`, inline);
  const card = { detector: 'pii.credit_card', count: 1, matches: [[5, 5 + CARD.length]] };
  t.same(violating[0].findings, [card]);
  t.same(violating[1].findings, [card]);
  t.same([s1.calls, s2.calls], [1, 1], 'a block finding spares the services');

  const flagOnly = await evaluate([withServices(flag, s1)], `card ${CARD}`, inline);
  t.same(flagOnly[0].findings, [card, { detector: 's1.violence', count: 1, matches: [] }], 'a flag finding does not');
  t.same(await evaluate(policies, '', inline), [], 'empty text: clean, nothing asked');
  t.equal(s1.calls, 2);

  const broken: RemoteDetector = { service: 'bug', check: async () => Promise.reject(new TypeError('bug')) };
  await t.rejects(
    evaluate([withServices(block, broken)], 'x', inline),
    TypeError,
    'only DetectionUnavailable means unavailable; a bug is not hidden',
  );
});

t.test('localScan: texts from the threshold up go to a worker thread, with the same findings', async (t) => {
  const policies = compile(
    policyConfig('a'),
    policyConfig('b', {
      detectors: [
        { type: 'secrets', kinds: ['aws_access_key'] },
        { type: 'injection', builtin_phrases: true, phrases: [] },
      ],
    }),
  );
  const text = `${'filler words '.repeat(100)} card ${CARD}, a@example.com, AKIAIOSFODNN7EXAMPLE, ignore previous instructions`;
  const tasks: string[] = [];
  const counting = {
    run: async (name: string, input: unknown) => (tasks.push(name), pool.run('scanText', input as never)),
    close: async () => {},
  };
  const threshold = localScan(counting as never, text.length);
  const at = (s: string) => [[text.indexOf(s), text.indexOf(s) + s.length]];
  const expected = [
    [
      { detector: 'pii.credit_card', count: 1, matches: at(CARD) },
      { detector: 'pii.email', count: 1, matches: at('a@example.com') },
    ],
    [
      { detector: 'secrets.aws_access_key', count: 1, matches: at('AKIAIOSFODNN7EXAMPLE') },
      { detector: 'injection', count: 1, matches: at('ignore previous instructions') },
    ],
  ];
  t.same(
    await threshold(policies, text.slice(0, -1)),
    [expected[0], [expected[1][0]]],
    'one short of the threshold: inline',
  );
  t.same(tasks, []);
  t.same(await threshold(policies, text), expected, 'at the threshold: in a worker thread');
  t.same(tasks, ['scanText']);
  t.same(await inline(policies, text), expected, 'the same findings inline');
});

t.test('enforce: block refuses with the policy message; flags and outages are recorded', async (t) => {
  const [block, flag, closed, open] = compile(
    policyConfig('block'),
    policyConfig('flag', { mode: 'flag' }),
    policyConfig('closed', { fail_closed: true, detectors: [{ type: 'secrets', kinds: ['aws_access_key'] }] }),
    policyConfig('open', { detectors: [{ type: 'secrets', kinds: ['aws_access_key'] }] }),
  );
  const down = service('down', 'unreachable');

  let ctx = context();
  enforce(ctx, 'prompt', await evaluate([block, flag], 'nothing here', inline));
  t.same(ctx.annotations, {}, 'clean: nothing recorded');

  ctx = context();
  enforce(
    ctx,
    'response',
    await evaluate([flag, withServices(open, down)], `a@example.com, ${CARD}, b@example.com`, inline),
  );
  t.same(ctx.annotations, {
    'guardrails.flagged': [
      { policy: 'flag', detector: 'pii.credit_card', where: 'response', count: 1 },
      { policy: 'flag', detector: 'pii.email', where: 'response', count: 2 },
    ],
    'guardrails.unavailable': [{ policy: 'open', service: 'down', where: 'response', reason: 'unreachable' }],
  });
  t.notMatch(JSON.stringify(ctx.annotations), /example\.com|4111/, 'never the matched text');
  enforce(ctx, 'response', await evaluate([flag], 'c@example.com', inline));
  t.equal((ctx.annotations['guardrails.flagged'] as unknown[]).length, 3, 'later verdicts append');

  ctx = context();
  const blocked = (() => {
    try {
      enforce(ctx, 'prompt', [
        { policy: withServices(closed, down), findings: [], unavailable: [{ service: 'down', reason: 'timeout' }] },
        { policy: block, findings: [{ detector: 'pii.credit_card', count: 1, matches: [] }], unavailable: [] },
      ]);
    } catch (err) {
      return err;
    }
  })();
  t.ok(blocked instanceof GatewayError);
  t.match(
    blocked,
    { code: 'guardrail_blocked', status: 400, message: 'blocked by block' },
    'a violation wins over an outage: a retry would be refused again',
  );
  t.same(ctx.annotations['guardrails.blocked'], [
    { policy: 'block', detector: 'pii.credit_card', where: 'prompt', count: 1 },
  ]);
  t.same(ctx.annotations['guardrails.unavailable'], [
    { policy: 'closed', service: 'down', where: 'prompt', reason: 'timeout' },
  ]);

  ctx = context();
  t.throws(
    () =>
      enforce(ctx, 'prompt', [
        { policy: withServices(closed, down), findings: [], unavailable: [{ service: 'down', reason: 'status 503' }] },
      ]),
    { code: 'guardrail_unavailable', status: 503 },
  );
  t.same(ctx.annotations['guardrails.unavailable'], [
    { policy: 'closed', service: 'down', where: 'prompt', reason: 'status 503' },
  ]);
  ctx = context();
  enforce(ctx, 'prompt', [
    { policy: withServices(open, down), findings: [], unavailable: [{ service: 'down', reason: 'timeout' }] },
  ]);
  t.ok(ctx.annotations['guardrails.unavailable'], 'fail open: through, recorded');
});

t.test('recordStreamVerdict: clean, flagged, violation, incomplete', async (t) => {
  const [block, flag] = compile(policyConfig('block'), policyConfig('flag', { mode: 'flag' }));
  const verdictOf = async (policies: Policy[], text: string, truncated = false) => {
    const ctx = context();
    recordStreamVerdict(ctx, await evaluate(policies, text, inline), text.length, truncated);
    return ctx.annotations;
  };
  t.same(await verdictOf([block, flag], 'fine'), {
    'guardrails.stream_verdict': { verdict: 'clean', findings: [], chars: 4 },
  });
  t.same((await verdictOf([flag], 'a@example.com'))['guardrails.stream_verdict'], {
    verdict: 'flagged',
    findings: [{ policy: 'flag', mode: 'flag', detector: 'pii.email', count: 1 }],
    chars: 13,
  });
  t.match((await verdictOf([block, flag], CARD, true))['guardrails.stream_verdict'], {
    verdict: 'violation',
    findings: [{ policy: 'block', mode: 'block' }, { policy: 'flag' }],
    truncated: true,
  });
  const overloaded = context();
  recordStreamVerdict(overloaded, new GatewayError('worker_pool_overloaded', 'busy'), 7, false);
  t.same(
    overloaded.annotations,
    { 'guardrails.stream_verdict': { verdict: 'incomplete', findings: [], chars: 7, error: 'worker_pool_overloaded' } },
    'a check that could not run',
  );
  const incomplete = await verdictOf([withServices(flag, service('m', 'timeout'))], 'fine');
  t.same(incomplete, {
    'guardrails.unavailable': [{ policy: 'flag', service: 'm', where: 'response', reason: 'timeout' }],
    'guardrails.stream_verdict': { verdict: 'incomplete', findings: [], chars: 4 },
  });
});

t.test('recordRedactions: each match as its field and offsets, once across policies', async (t) => {
  const [block, flag] = compile(policyConfig('block'), policyConfig('flag', { mode: 'flag' }));
  const checked = requestText('chat', {
    messages: [
      { role: 'system', content: 'no secrets' },
      { role: 'user', content: `pay ${CARD}, mail a@example.com` },
    ],
  });
  const ctx = context();
  recordRedactions(ctx, 'prompt', checked, await evaluate([block, flag], checked.text, inline));
  t.same(ctx.redactions, [
    {
      detector: 'pii.credit_card',
      where: 'prompt',
      path: 'messages[1].content',
      start: 4,
      end: 4 + CARD.length,
      text: CARD,
    },
    { detector: 'pii.email', where: 'prompt', path: 'messages[1].content', start: 30, end: 43, text: 'a@example.com' },
  ]);
  recordRedactions(ctx, 'prompt', checked, [
    { policy: block, findings: [{ detector: 'mod.violence', count: 1, matches: [] }], unavailable: [] },
  ]);
  t.equal(ctx.redactions.length, 2, 'a finding without a position redacts nothing');
});
