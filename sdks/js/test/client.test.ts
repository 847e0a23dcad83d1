// SvcClient construction (options over SVC_PUBLIC_KEY / SVC_SECRET_KEY / SVC_BASE_URL, each bad setting a
// SvcConfigError naming it) and authCheck() against the real service: valid keys, a wrong secret, an unknown public
// key, the wrong listener, and no server.
import { createServer } from 'node:http';
import t from 'tap';
import { listenLocally } from '../../../test/helpers/local-server.ts';
import { SvcApiError, SvcClient, SvcConfigError, SvcConnectionError } from '../src/index.ts';
import { deadUrl, startSdkTestService } from './service.ts';

const svc = await startSdkTestService(t);
const VARS = ['SVC_PUBLIC_KEY', 'SVC_SECRET_KEY', 'SVC_BASE_URL'] as const;

/** Runs `fn` with exactly these SVC_* variables set, restoring the environment after. */
function withEnv<T>(vars: Partial<Record<(typeof VARS)[number], string>>, fn: () => T): T {
  const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
  for (const v of VARS) delete process.env[v];
  Object.assign(process.env, vars);
  try {
    return fn();
  } finally {
    for (const v of VARS) {
      if (saved[v] === undefined) delete process.env[v];
      else process.env[v] = saved[v];
    }
  }
}

function configError(fn: () => unknown): SvcConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SvcConfigError) return err;
    throw err;
  }
  throw new Error('expected a SvcConfigError');
}

const env = () => ({
  SVC_PUBLIC_KEY: svc.options.publicKey,
  SVC_SECRET_KEY: svc.options.secretKey,
  SVC_BASE_URL: svc.options.baseUrl,
});

t.test('configured from the environment: authCheck resolves true', async (t) => {
  const client = withEnv(env(), () => new SvcClient());
  t.equal(client.baseUrl, svc.options.baseUrl);
  t.equal(client.publicKey, svc.options.publicKey);
  t.equal(await client.authCheck(), true);
});

t.test('options override the environment', async (t) => {
  const client = withEnv(
    { ...env(), SVC_SECRET_KEY: 'sk-wrong', SVC_BASE_URL: 'http://127.0.0.1:1' },
    () => new SvcClient({ secretKey: svc.options.secretKey, baseUrl: `${svc.options.baseUrl}/` }),
  );
  t.equal(client.baseUrl, svc.options.baseUrl, 'trailing slash dropped');
  t.equal(await client.authCheck(), true);
});

t.test('a missing setting names its variable', async (t) => {
  for (const missing of VARS) {
    const vars: Record<string, string> = env();
    delete vars[missing];
    const err = withEnv(vars, () => configError(() => new SvcClient()));
    t.equal(err.variable, missing);
    t.match(err.message, new RegExp(`^${missing} is not set`));
  }
  const blank = withEnv({ ...env(), SVC_SECRET_KEY: '  ' }, () => configError(() => new SvcClient()));
  t.equal(blank.variable, 'SVC_SECRET_KEY', 'a blank variable is missing');
});

t.test('malformed settings: the variable or option is named with the problem', async (t) => {
  const cases: [Record<string, string>, Record<string, unknown>, string, RegExp][] = [
    [{ SVC_BASE_URL: 'localhost:8081' }, {}, 'SVC_BASE_URL', /http or https/],
    [{ SVC_BASE_URL: 'not a url' }, {}, 'SVC_BASE_URL', /is not a URL/],
    [{ SVC_BASE_URL: 'http://localhost:8081/api/public' }, {}, 'SVC_BASE_URL', /without \/api\/public/],
    [{ SVC_BASE_URL: 'http://localhost:8080/v1' }, {}, 'SVC_BASE_URL', /not a \/v1 API URL/],
    [{ SVC_BASE_URL: 'http://user:pw@localhost:8081' }, {}, 'SVC_BASE_URL', /credentials/],
    [{ SVC_PUBLIC_KEY: svc.options.secretKey }, {}, 'SVC_PUBLIC_KEY', /holds a secret key/],
    [{ SVC_SECRET_KEY: svc.options.publicKey }, {}, 'SVC_SECRET_KEY', /holds a public key/],
    [{ SVC_PUBLIC_KEY: 'pk-a b' }, {}, 'SVC_PUBLIC_KEY', /whitespace/],
    [{}, { publicKey: 'pk:x' }, 'publicKey', /":"/],
    [{}, { secretKey: '' }, 'secretKey', /is empty/],
    [{}, { baseUrl: 'ftp://host' }, 'baseUrl', /http or https/],
    [{}, { timeoutMs: 0 }, 'timeoutMs', /positive number/],
    [{}, { maxRetries: 1.5 }, 'maxRetries', /whole number/],
    [{}, { promptCacheTtlSeconds: -1 }, 'promptCacheTtlSeconds', /0 or more/],
  ];
  for (const [vars, options, variable, problem] of cases) {
    const err = withEnv({ ...env(), ...vars }, () => configError(() => new SvcClient(options)));
    t.equal(err.variable, variable, `${variable}: ${err.message}`);
    t.match(err.message, problem);
  }
});

t.test('authCheck: a wrong secret is a SvcApiError 401 with the server message', async (t) => {
  const client = new SvcClient({ ...svc.options, secretKey: 'sk-svc-wrong' });
  const err = await client.authCheck().then(
    () => t.fail('resolved'),
    (e: unknown) => e,
  );
  t.ok(err instanceof SvcApiError);
  t.equal((err as SvcApiError).status, 401);
  t.equal((err as SvcApiError).error, 'UnauthorizedError');
  t.match((err as SvcApiError).message, /401 Invalid credentials\. Confirm that you've configured the correct host\./);
});

t.test('authCheck: an unknown public key is 401 too', async (t) => {
  const client = new SvcClient({ ...svc.options, publicKey: 'pk-svc-unknown' });
  await t.rejects(client.authCheck(), { name: 'SvcApiError', status: 401 });
});

t.test('authCheck: the gateway listener instead of the admin one is a 404', async (t) => {
  const client = new SvcClient({ ...svc.options, baseUrl: svc.s.gatewayUrl, maxRetries: 0 });
  await t.rejects(client.authCheck(), { name: 'SvcApiError', status: 404 });
});

t.test('authCheck: no server is a SvcConnectionError after the retries', async (t) => {
  const client = new SvcClient({ ...svc.options, baseUrl: await deadUrl(), maxRetries: 1 });
  const err = await client.authCheck().then(
    () => t.fail('resolved'),
    (e: unknown) => e,
  );
  t.ok(err instanceof SvcConnectionError);
  t.match((err as Error).message, /could not reach the server \(ECONNREFUSED\)/);
});

t.test('authCheck: a server that answers 200 but is not svc is an error, not true', async (t) => {
  const local = await listenLocally(
    createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>welcome</html>')),
  );
  t.teardown(() => local.close());
  const client = new SvcClient({ ...svc.options, baseUrl: local.url });
  await t.rejects(client.authCheck(), {
    name: 'SvcError',
    message: `${local.url} answered GET /api/public/projects, but not as svc does: is it svc's admin listener?`,
  });
});
