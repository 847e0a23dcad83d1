// tracing.otlp in gateway.yaml (docs/configuration.md "tracing"): off unless set, defaults, and errors naming the
// YAML path.
import t from 'tap';
import { stringify } from 'yaml';
import { ConfigError, type ConfigIssue } from '../../src/platform/config/config-error.ts';
import { parseConfig } from '../../src/platform/config/load-config.ts';
import { baseConfig } from '../helpers/test-config.ts';

/** gateway.yaml text: the tests' base config with `tracing` set as given. */
const configText = (tracing?: unknown): string => stringify(baseConfig(tracing === undefined ? {} : { tracing }));

function issuesOf(text: string): ConfigIssue[] {
  try {
    parseConfig(text, { env: {} });
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  return [];
}

t.test('off by default', async (t) => {
  t.same(parseConfig(configText(), { env: {} }).config.tracing, {});
});

t.test('an endpoint alone: the defaults', async (t) => {
  const { config } = parseConfig(configText({ otlp: { endpoint: 'http://collector:4318/v1/traces' } }), {
    env: {},
  });
  t.same(config.tracing.otlp, {
    endpoint: 'http://collector:4318/v1/traces',
    protocol: 'http/protobuf',
    headers: {},
    timeout_ms: 10_000,
    queue_size: 10_000,
    batch_size: 512,
    flush_ms: 1000,
    service_name: 'svc-gateway',
    resource_attributes: {},
  });
});

t.test('bad settings are refused with their path', async (t) => {
  const issues = issuesOf(configText({ otlp: { endpoint: 'collector:4318', protocol: 'grpc', queue_size: 0 } }));
  const paths = issues.map((i) => `${i.path}: ${i.message}`);
  t.ok(
    paths.some((p) => p.startsWith('tracing.otlp.endpoint: must match pattern')),
    paths.join('\n'),
  );
  t.ok(
    paths.some((p) => p.startsWith('tracing.otlp.protocol: must be one of')),
    paths.join('\n'),
  );
  t.ok(paths.includes('tracing.otlp.queue_size: must be >= 1'), paths.join('\n'));
  t.match(issuesOf(configText({ otlp: { headers: {} } })), [{ path: 'tracing.otlp', message: /endpoint/ }]);
});
