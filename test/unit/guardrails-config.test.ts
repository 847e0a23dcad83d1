// The guardrails plugin config (plugins/guardrails/schema.json and setup): defaults applied, every schema problem at
// its plugins[N].config path, and the setup errors the schema cannot see (a bad regex, an unknown service, a
// repeated policy name, a policy that checks nothing).
import t from 'tap';
import { Agent } from 'undici';
import { stringify } from 'yaml';
import { ConfigError } from '../../src/platform/config/config-error.ts';
import { parseConfig } from '../../src/platform/config/load-config.ts';
import { resolvePlugins, setupPipeline } from '../../src/gateway/pipeline/load-pipeline.ts';
import { baseConfig } from '../helpers/service.ts';
import type { Services } from '../../src/plugin-api/services.ts';
import { BUILTIN_PLUGINS } from '../../plugins/index.ts';

const dispatcher = new Agent();
t.teardown(() => dispatcher.close());
// Setup of guardrails reads nothing from services but the dispatcher.
const services = { dispatcher } as unknown as Services;

function loaded(config: unknown) {
  return parseConfig(
    stringify(baseConfig({ plugins: [{ use: 'guardrails', config }, { use: 'auth' }, { use: 'router' }] })),
    { env: {} },
  );
}

async function issues(config: unknown): Promise<{ path: string; message: string }[]> {
  try {
    const l = loaded(config);
    // Guardrails alone: its setup error is the only one reported.
    await setupPipeline(l, (await resolvePlugins(l, BUILTIN_PLUGINS)).slice(0, 1), services);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map(({ path, message }) => ({ path, message }));
    throw err;
  }
  return [];
}

const pii = { type: 'pii' };

t.test('defaults', async (t) => {
  const l = loaded({
    services: { p: { type: 'presidio', url: 'http://127.0.0.1:1' } },
    policies: [{ name: 'p', detectors: [pii, { type: 'secrets' }, { type: 'injection' }] }],
  });
  const [guardrails] = await resolvePlugins(l, BUILTIN_PLUGINS);
  t.same(guardrails.config, {
    services: { p: { type: 'presidio', url: 'http://127.0.0.1:1', language: 'en' } },
    policies: [
      {
        name: 'p',
        detectors: [
          { type: 'pii', entities: ['email', 'phone', 'credit_card', 'iban', 'us_ssn'] },
          {
            type: 'secrets',
            kinds: [
              'aws_access_key',
              'private_key',
              'openai_key',
              'github_token',
              'slack_token',
              'stripe_key',
              'google_api_key',
            ],
          },
          { type: 'injection', builtin_phrases: true, phrases: [] },
        ],
        mode: 'block',
        blocked_message: 'The request was blocked by a content policy.',
        fail_closed: false,
        timeout_ms: 2000,
        check: { prompt: true, response: true },
      },
    ],
    stream_max_chars: 1048576,
    worker_threshold_chars: 65536,
  });
});

t.test('schema problems, each at its path', async (t) => {
  const cases: [unknown, { path: string; message: string | RegExp }[]][] = [
    [undefined, [{ path: 'plugins[0].config', message: "must have required property 'policies'" }]],
    [{ policies: [] }, [{ path: 'plugins[0].config.policies', message: 'must NOT have fewer than 1 items' }]],
    [
      { policies: [{ name: 'p', detectors: [pii] }], colour: 1 },
      [{ path: 'plugins[0].config', message: "unknown property 'colour'" }],
    ],
    [
      { policies: [{ name: 'p', detectors: [] }] },
      [{ path: 'plugins[0].config.policies[0].detectors', message: 'must NOT have fewer than 1 items' }],
    ],
    [
      { policies: [{ name: 'p', detectors: [pii], mode: 'warn' }] },
      [{ path: 'plugins[0].config.policies[0].mode', message: 'must be one of "block", "flag"' }],
    ],
    [
      { policies: [{ name: 'p', detectors: [pii], timeout_ms: 0 }] },
      [{ path: 'plugins[0].config.policies[0].timeout_ms', message: 'must be >= 1' }],
    ],
    [
      { policies: [{ name: 'p', detectors: [pii], projects: [] }] },
      [{ path: 'plugins[0].config.policies[0].projects', message: 'must NOT have fewer than 1 items' }],
    ],
    [
      { policies: [{ name: 'p', detectors: [pii], check: { answer: true } }] },
      [{ path: 'plugins[0].config.policies[0].check', message: "unknown property 'answer'" }],
    ],
    [
      { policies: [{ name: 'p', detectors: [{ type: 'pii', entities: ['passport'] }] }] },
      [{ path: 'plugins[0].config.policies[0].detectors[0].entities[0]', message: /^must be one of "email"/ }],
    ],
    [
      { policies: [{ name: 'p', detectors: [{ type: 'pii', kinds: ['aws_access_key'] }] }] },
      [{ path: 'plugins[0].config.policies[0].detectors[0]', message: "unknown property 'kinds'" }],
    ],
    [
      { policies: [{ name: 'p', detectors: [{ type: 'dlp' }] }] },
      [{ path: 'plugins[0].config.policies[0].detectors[0].type', message: /^must be one of "pii"/ }],
    ],
    [
      { policies: [{ name: 'p', detectors: [{ type: 'regex', patterns: ['x'] }] }] },
      [{ path: 'plugins[0].config.policies[0].detectors[0]', message: "must have required property 'name'" }],
    ],
    [
      { policies: [{ name: 'p', detectors: [{ type: 'service' }] }] },
      [{ path: 'plugins[0].config.policies[0].detectors[0]', message: "must have required property 'service'" }],
    ],
    [
      { services: { m: { type: 'openai-moderation', url: 'ftp://x' } }, policies: [{ name: 'p', detectors: [pii] }] },
      [{ path: 'plugins[0].config.services.m.url', message: /^must match pattern/ }],
    ],
    [
      {
        services: { m: { type: 'presidio', url: 'http://x', api_key: 'k' } },
        policies: [{ name: 'p', detectors: [pii] }],
      },
      [{ path: 'plugins[0].config.services.m', message: "unknown property 'api_key'" }],
    ],
    [
      { services: { 'Bad Name': { type: 'presidio', url: 'http://x' } }, policies: [{ name: 'p', detectors: [pii] }] },
      [
        { path: 'plugins[0].config.services', message: /^must match pattern/ },
        { path: 'plugins[0].config.services', message: /^property name/ },
      ],
    ],
  ];
  for (const [config, expected] of cases) {
    const got = await issues(config);
    t.match(got, expected, JSON.stringify(config));
    t.equal(got.length, expected.length, 'and nothing else');
  }
});

t.test('setup errors name the policy and detector', async (t) => {
  const regex = { type: 'regex', name: 'ids', patterns: ['ok', '(unclosed'] };
  t.match(
    await issues({
      policies: [
        { name: 'a', detectors: [pii] },
        { name: 'b', detectors: [pii, regex] },
      ],
    }),
    [
      {
        path: 'plugins[0]',
        message:
          /^setup of 'guardrails' failed: policies\[1\] \('b'\): detectors\[1\]: patterns\[1\] is not a valid regular expression/,
      },
    ],
  );
  t.match(await issues({ policies: [{ name: 'a', detectors: [{ type: 'service', service: 'ghost' }] }] }), [
    {
      path: 'plugins[0]',
      message:
        "setup of 'guardrails' failed: policies[0] ('a'): detectors[0]: service 'ghost' is not defined under services",
    },
  ]);
  t.match(
    await issues({
      policies: [
        { name: 'a', detectors: [pii] },
        { name: 'a', detectors: [pii] },
      ],
    }),
    [
      {
        path: 'plugins[0]',
        message: "setup of 'guardrails' failed: policies[1].name: 'a' is used by an earlier policy",
      },
    ],
  );
  t.match(await issues({ policies: [{ name: 'a', detectors: [pii], check: { prompt: false, response: false } }] }), [
    { path: 'plugins[0]', message: /policies\[0\] \('a'\): check\.prompt and check\.response are both false/ },
  ]);
  // Set up alone, without a router: the only complaint left is the missing terminal plugin.
  t.match(
    await issues({ policies: [{ name: 'a', detectors: [pii] }] }),
    [{ path: 'plugins', message: /exactly one terminal plugin/ }],
    'a good config sets up',
  );
});
