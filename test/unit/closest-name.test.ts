// "Did you mean": a misspelt config key or plugin name, and the known name it most likely meant.
import t from 'tap';
import { closestName } from '../../src/platform/config/closest-name.ts';

const PLUGINS = ['auth', 'guardrails', 'router', 'rate-limit', 'budget', 'cache', 'tracing'];

t.test('a typo of a known name suggests it', async (t) => {
  t.equal(closestName('rate-limt', PLUGINS), 'rate-limit');
  t.equal(closestName('ratelimit', PLUGINS), 'rate-limit', '- and _ do not count');
  t.equal(closestName('rate_limit', PLUGINS), 'rate-limit');
  t.equal(closestName('Guardrail', PLUGINS), 'guardrails', 'nor does case');
  t.equal(closestName('rpmm', ['rpm', 'tpm', 'budget_usd']), 'rpm', 'the closest of several near ones');
  t.equal(closestName('max_body_byte', ['max_body_bytes', 'port']), 'max_body_bytes');
});

t.test('an unrelated word suggests nothing', async (t) => {
  t.equal(closestName('colour', ['host', 'port', 'admin_port']), undefined);
  t.equal(closestName('abm', ['rpm', 'tpm']), undefined, 'two edits of a three-letter name make another word');
  t.equal(closestName('anything', []), undefined);
});
