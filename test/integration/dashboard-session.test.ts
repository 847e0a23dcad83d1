// Dashboard sessions and users (docs/dashboard.md "Users, roles and sessions"): the first-start owner, sign-in (ok,
// wrong password, unknown email, deactivated user, rate limit, parallel attempts, concurrent hashes), the cookie's attributes, expiry on the service's clock,
// sign-out, CSRF, roles, API keys refused, changing one's own password, the error envelope and the audit rows. Both
// store backends.
import t from 'tap';
import { systemClock } from '../../src/platform/clock.ts';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { DEFAULT_SIGN_IN_LIMITS } from '../../src/observability/users/sign-in-limiter.ts';
import { dashboardRequest, signIn, type DashboardClient } from '../helpers/dashboard.ts';
import { basicAuth } from '../helpers/public-api.ts';
import { baseConfig, startTestService, TEST_KEY } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const SESSION_HOURS = 2;
const COOKIE = new RegExp(
  `^svc_session=[A-Za-z0-9_-]{43}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${SESSION_HOURS * 3600}$`,
);
const error = (code: string) => ({ error: { code, message: String } });

for (const backend of STORE_BACKENDS) {
  t.test(`dashboard sessions on ${backend}`, async (t) => {
    let nowMs = Date.now();
    const clock = { now: () => nowMs, sleep: systemClock.sleep };
    const s = await startTestService(t, baseConfig({ dashboard: { session_hours: SESSION_HOURS } }), {
      backend,
      clock,
    });
    const req = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
      dashboardRequest(s, method, path, headers, body);
    const firstOwner = s.service.firstOwner!;
    let owner: DashboardClient;
    const passwords: Record<string, string> = {};

    t.test('the first start creates owner@localhost with a generated password', async (t) => {
      t.equal(firstOwner.email, 'owner@localhost');
      t.match(firstOwner.password, /^[A-Za-z0-9_-]{24}$/);
    });

    t.test('sign-in sets the session cookie and answers the user and CSRF token', async (t) => {
      const r = await req('POST', '/session', {}, { email: 'Owner@LocalHost', password: firstOwner.password });
      t.equal(r.status, 200);
      t.match(r.body, {
        user: { id: String, email: 'owner@localhost', name: 'Owner', role: 'owner' },
        csrfToken: /^[A-Za-z0-9_-]{32}$/,
      });
      t.same(Object.keys(r.body.user).sort(), ['email', 'id', 'name', 'role']);
      t.match(r.headers.get('set-cookie'), COOKIE);
      t.equal(r.headers.get('cache-control'), 'no-store');
      owner = await signIn(s, 'owner@localhost', firstOwner.password);
      const current = await owner.call('GET', '/session');
      t.same(current.body, { user: owner.user, csrfToken: owner.csrfToken });
    });

    t.test('wrong password and unknown email get the same 401 invalid_credentials', async (t) => {
      const wrong = await req('POST', '/session', {}, { email: 'owner@localhost', password: 'not-it' });
      const unknown = await req('POST', '/session', {}, { email: 'nobody@localhost', password: firstOwner.password });
      t.equal(wrong.status, 401);
      t.same(wrong.body, { error: { code: 'invalid_credentials', message: 'Wrong email or password' } });
      t.same([unknown.status, unknown.body], [wrong.status, wrong.body]);
      t.equal(wrong.headers.get('set-cookie'), null);
      // U+0000 cannot reach PostgreSQL as a parameter; such an email is one no user has.
      for (const email of ['owner@localhost\u0000', '\u0000', "\u0000' OR '1'='1"]) {
        const nul = await req('POST', '/session', {}, { email, password: firstOwner.password });
        t.same([nul.status, nul.body], [wrong.status, wrong.body], JSON.stringify(email));
      }
      const bad = await req('POST', '/session', {}, { email: 'owner@localhost' });
      t.match(bad, { status: 400, body: error('invalid_request') });
    });

    t.test('no session, an unknown cookie and API keys are 401 unauthenticated', async (t) => {
      const orgKey = await createApiKey(s.service.db, {
        kind: 'organization',
        organizationId: 'default',
        now: Date.now(),
      });
      const projectKey = await createApiKey(s.service.db, {
        kind: 'project',
        organizationId: 'default',
        projectId: 'default',
        now: Date.now(),
      });
      const credentials: Record<string, string>[] = [
        {},
        { cookie: 'svc_session=made-up' },
        { authorization: basicAuth(orgKey) },
        { authorization: basicAuth(projectKey) },
        { authorization: `Bearer ${projectKey.secretKey}` },
        { authorization: `Bearer ${TEST_KEY}` },
      ];
      for (const headers of credentials) {
        for (const path of ['/session', '/users', '/projects', '/audit']) {
          t.match(
            await req('GET', path, headers),
            { status: 401, body: error('unauthenticated') },
            `${JSON.stringify(headers)} GET ${path}`,
          );
        }
      }
    });

    t.test('a change without the session’s CSRF token is 403 csrf_failed', async (t) => {
      const body = { email: 'nocsrf@example.com', role: 'viewer' };
      t.match(await owner.call('POST', '/users', body, { csrf: false }), { status: 403, body: error('csrf_failed') });
      t.match(await req('POST', '/users', { cookie: owner.cookie, 'x-svc-csrf': 'x'.repeat(32) }, body), {
        status: 403,
        body: error('csrf_failed'),
      });
      t.match(await owner.call('DELETE', '/session', undefined, { csrf: false }), {
        status: 403,
        body: error('csrf_failed'),
      });
      t.equal((await owner.call('GET', '/session')).status, 200, 'the session is still there');
    });

    t.test('an admin adds users with a generated password; members and viewers cannot', async (t) => {
      for (const role of ['admin', 'member', 'viewer']) {
        const r = await owner.call('POST', '/users', { email: `${role}@example.com`, name: `A ${role}`, role });
        t.equal(r.status, 201, role);
        t.match(r.body, {
          user: { id: String, email: `${role}@example.com`, name: `A ${role}`, role, active: true, createdAt: String },
          password: /^[A-Za-z0-9_-]{24}$/,
        });
        passwords[role] = r.body.password;
      }
      const member = await signIn(s, 'member@example.com', passwords.member);
      t.match(await member.call('POST', '/users', { email: 'x@example.com', role: 'viewer' }), {
        status: 403,
        body: error('permission_denied'),
      });
      const admin = await signIn(s, 'admin@example.com', passwords.admin);
      t.match(
        await admin.call('POST', '/users', { email: 'boss@example.com', role: 'owner' }),
        { status: 403, body: error('permission_denied') },
        'only an owner makes owners',
      );
      t.match(
        await admin.call('POST', '/users', { email: 'VIEWER@example.com', role: 'viewer' }),
        { status: 409, body: error('conflict') },
        'emails are unique in any case',
      );
      t.match(await admin.call('POST', '/users', { email: 'not-an-email', role: 'viewer' }), {
        status: 400,
        body: error('invalid_request'),
      });
      t.match(await admin.call('POST', '/users', { email: 'y@example.com', role: 'superuser' }), {
        status: 400,
        body: error('invalid_request'),
      });
      const list = await member.call('GET', '/users');
      t.equal(list.status, 200);
      t.same(
        list.body.data.map((u: any) => [u.email, u.role, u.active]),
        [
          ['owner@localhost', 'owner', true],
          ['admin@example.com', 'admin', true],
          ['member@example.com', 'member', true],
          ['viewer@example.com', 'viewer', true],
        ],
      );
    });

    t.test('a viewer cannot PATCH /users; an admin can; the last owner stays', async (t) => {
      const viewer = await signIn(s, 'viewer@example.com', passwords.viewer);
      const users = (await viewer.call('GET', '/users')).body.data as { id: string; email: string }[];
      const idOf = (email: string) => users.find((u) => u.email === email)!.id;
      t.match(await viewer.call('PATCH', `/users/${idOf('member@example.com')}`, { role: 'viewer' }), {
        status: 403,
        body: error('permission_denied'),
      });
      const admin = await signIn(s, 'admin@example.com', passwords.admin);
      const changed = await admin.call('PATCH', `/users/${idOf('member@example.com')}`, { role: 'viewer' });
      t.match(changed, { status: 200, body: { user: { email: 'member@example.com', role: 'viewer', active: true } } });
      t.match(
        await admin.call('PATCH', `/users/${idOf('owner@localhost')}`, { active: false }),
        { status: 403, body: error('permission_denied') },
        'an admin cannot change an owner',
      );
      t.match(
        await owner.call('PATCH', `/users/${idOf('owner@localhost')}`, { role: 'admin' }),
        { status: 409, body: error('conflict') },
        'the last active owner',
      );
      t.match(await admin.call('PATCH', '/users/no-such-user', { role: 'viewer' }), {
        status: 404,
        body: error('not_found'),
      });
      t.match(await admin.call('PATCH', `/users/${idOf('member@example.com')}`, {}), {
        status: 400,
        body: error('invalid_request'),
      });
    });

    t.test('a deactivated user’s sessions stop working and they cannot sign in', async (t) => {
      const viewer = await signIn(s, 'viewer@example.com', passwords.viewer);
      const r = await owner.call('PATCH', `/users/${viewer.user.id}`, { active: false });
      t.match(r, { status: 200, body: { user: { active: false } } });
      t.match(await viewer.call('GET', '/session'), { status: 401, body: error('unauthenticated') });
      t.match(await req('POST', '/session', {}, { email: 'viewer@example.com', password: passwords.viewer }), {
        status: 401,
        body: { error: { code: 'invalid_credentials', message: 'Wrong email or password' } },
      });
      t.equal((await owner.call('PATCH', `/users/${viewer.user.id}`, { active: true })).status, 200);
      t.equal((await signIn(s, 'viewer@example.com', passwords.viewer)).user.role, 'viewer');
    });

    t.test('GET /projects and the not-found envelope', async (t) => {
      t.same((await owner.call('GET', '/projects')).body, { data: [{ id: 'default', name: 'Default' }] });
      t.match(await owner.call('GET', '/nothing-here'), { status: 404, body: error('not_found') });
    });

    t.test('sign-out ends the session and clears the cookie', async (t) => {
      const member = await signIn(s, 'member@example.com', passwords.member);
      const r = await member.call('DELETE', '/session');
      t.equal(r.status, 204);
      t.equal(r.headers.get('set-cookie'), 'svc_session=; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=0');
      t.match(await member.call('GET', '/session'), { status: 401, body: error('unauthenticated') });
    });

    t.test(
      'a user changes their own password: the other sessions end, this one goes on with a new cookie',
      async (t) => {
        // member@example.com is a viewer since the PATCH above: any role may change its own password.
        const here = await signIn(s, 'member@example.com', passwords.member);
        const elsewhere = await signIn(s, 'member@example.com', passwords.member);
        const next = 'a new password for the member';
        const r = await here.call('PUT', '/session/password', { currentPassword: passwords.member, newPassword: next });
        t.equal(r.status, 200);
        t.same(r.body, { user: { ...here.user, role: 'viewer' }, csrfToken: r.body.csrfToken });
        t.match(r.body.csrfToken, /^[A-Za-z0-9_-]{32}$/);
        t.not(r.body.csrfToken, here.csrfToken);
        t.match(r.headers.get('set-cookie'), COOKIE);
        t.equal(r.headers.get('cache-control'), 'no-store');
        const cookie = r.headers.get('set-cookie')!.split(';', 1)[0];
        t.not(cookie, here.cookie);
        t.match(
          await here.call('GET', '/session'),
          { status: 401, body: error('unauthenticated') },
          'the old cookie of this browser',
        );
        t.match(
          await elsewhere.call('GET', '/session'),
          { status: 401, body: error('unauthenticated') },
          'another session',
        );
        const current = await req('GET', '/session', { cookie });
        t.same(current.body, r.body, 'the new cookie carries the session on');
        t.equal(
          (await req('DELETE', '/session', { cookie, 'x-svc-csrf': r.body.csrfToken })).status,
          204,
          'and its CSRF token works',
        );
        t.match(
          await req('POST', '/session', {}, { email: 'member@example.com', password: passwords.member }),
          { status: 401, body: error('invalid_credentials') },
          'the old password',
        );
        passwords.member = next;
        t.equal((await signIn(s, 'member@example.com', next)).user.email, 'member@example.com', 'the new password');
      },
    );

    t.test('a wrong current password is 401 invalid_credentials, counted by the sign-in limiter', async (t) => {
      const { maxFailures, windowMs } = DEFAULT_SIGN_IN_LIMITS;
      const member = await signIn(s, 'member@example.com', passwords.member);
      const change = (currentPassword: string) =>
        member.call('PUT', '/session/password', { currentPassword, newPassword: 'never becomes the password' });
      const wrong = await change('not the password');
      t.same(
        [wrong.status, wrong.body],
        [401, { error: { code: 'invalid_credentials', message: 'The current password is wrong' } }],
      );
      t.equal(wrong.headers.get('set-cookie'), null);
      t.equal((await member.call('GET', '/session')).status, 200, 'the session stays');
      for (let i = 1; i < maxFailures; i++) t.equal((await change(`wrong-${i}`)).status, 401);
      t.match(
        await change(passwords.member),
        { status: 429, body: error('rate_limited') },
        'limited, even with the right password',
      );
      t.match(
        await req('POST', '/session', {}, { email: 'member@example.com', password: passwords.member }),
        { status: 429, body: error('rate_limited') },
        'sign-in shares the count',
      );
      nowMs += windowMs;
      t.equal(
        (await signIn(s, 'member@example.com', passwords.member)).user.email,
        'member@example.com',
        'the password did not change',
      );
    });

    t.test('a new password that is too short, too long or the current one is 400 invalid_request', async (t) => {
      const member = await signIn(s, 'member@example.com', passwords.member);
      const change = (body: unknown) => member.call('PUT', '/session/password', body);
      const short = await change({ currentPassword: passwords.member, newPassword: 'elevenchars' });
      t.same(
        [short.status, short.body],
        [
          400,
          { error: { code: 'invalid_request', message: 'The new password needs at least 12 characters (it has 11)' } },
        ],
      );
      t.match(await change({ currentPassword: passwords.member, newPassword: 'x'.repeat(201) }), {
        status: 400,
        body: { error: { code: 'invalid_request', message: /at most 200 characters/ } },
      });
      t.match(await change({ currentPassword: passwords.member, newPassword: passwords.member }), {
        status: 400,
        body: { error: { code: 'invalid_request', message: 'The new password must differ from the current one' } },
      });
      t.match(
        await change({ newPassword: 'long enough new password' }),
        { status: 400, body: error('invalid_request') },
        'no current password',
      );
      t.equal(
        (await change({ currentPassword: passwords.member, newPassword: 'x'.repeat(12) })).status,
        200,
        '12 characters are enough',
      );
      passwords.member = 'x'.repeat(12);
      t.equal((await signIn(s, 'member@example.com', passwords.member)).user.email, 'member@example.com');
    });

    t.test('a password change without the CSRF token is 403, without a session 401', async (t) => {
      const member = await signIn(s, 'member@example.com', passwords.member);
      const body = { currentPassword: passwords.member, newPassword: 'an attacker’s password' };
      t.match(await member.call('PUT', '/session/password', body, { csrf: false }), {
        status: 403,
        body: error('csrf_failed'),
      });
      t.match(await req('PUT', '/session/password', { cookie: member.cookie, 'x-svc-csrf': 'x'.repeat(32) }, body), {
        status: 403,
        body: error('csrf_failed'),
      });
      t.match(await req('PUT', '/session/password', {}, body), { status: 401, body: error('unauthenticated') });
      t.match(
        await req('PUT', '/session/password', { cookie: 'svc_session=made-up', 'x-svc-csrf': member.csrfToken }, body),
        { status: 401, body: error('unauthenticated') },
      );
      t.equal((await member.call('GET', '/session')).status, 200, 'the session stays');
      t.equal(
        (await signIn(s, 'member@example.com', passwords.member)).user.email,
        'member@example.com',
        'the password stays',
      );
    });

    t.test('sign-in, sign-out and user changes are in the audit log', async (t) => {
      const r = await owner.call('GET', '/audit?limit=200');
      t.equal(r.status, 200);
      const rows = r.body.data as { actor: string; action: string; target: string; id: string; at: string }[];
      t.match(r.body.pagination, { limit: 200, offset: 0, total: rows.length });
      const has = (actor: string, action: string) => rows.some((x) => x.actor === actor && x.action === action);
      t.ok(has('dashboard:owner@localhost', 'user.sign_in'));
      t.ok(has('dashboard:member@example.com', 'user.sign_out'));
      t.ok(has('dashboard:owner@localhost', 'user.create'));
      t.ok(has('dashboard:admin@example.com', 'user.update'));
      const changes = rows.filter((x) => x.action === 'user.password_change');
      t.equal(changes.length, 2, 'the two password changes');
      for (const x of changes)
        t.match(x, {
          actor: 'dashboard:member@example.com',
          target: /^user:/,
          details: { email: 'member@example.com' },
        });
      t.ok(has('config', 'user.create'), 'the first owner');
      t.ok(rows.every((x) => /^(user|api_key):/.test(x.target)));
      t.match(rows[0], { id: String, at: String, actor: String, action: String, details: Object });
      const page = await owner.call('GET', '/audit?limit=2&offset=1');
      t.same(page.body.data, rows.slice(1, 3));
    });

    t.test('failed sign-ins are limited per email', async (t) => {
      const { maxFailures, windowMs } = DEFAULT_SIGN_IN_LIMITS;
      for (let i = 0; i < maxFailures; i++) {
        t.equal(
          (await req('POST', '/session', {}, { email: 'Admin@example.com', password: `wrong-${i}` })).status,
          401,
        );
      }
      const limited = await req('POST', '/session', {}, { email: 'admin@example.com', password: passwords.admin });
      t.match(limited, { status: 429, body: error('rate_limited') });
      t.equal(limited.headers.get('retry-after'), String(windowMs / 1000));
      t.equal(
        (await req('POST', '/session', {}, { email: 'member@example.com', password: passwords.member })).status,
        200,
        'other emails are not limited',
      );
      nowMs += windowMs;
      t.equal(
        (await req('POST', '/session', {}, { email: 'admin@example.com', password: passwords.admin })).status,
        200,
        'the window passed',
      );
    });

    t.test('parallel sign-ins for one email cannot pass the limit together', async (t) => {
      const { maxFailures, windowMs } = DEFAULT_SIGN_IN_LIMITS;
      const attempt = (password: string) => req('POST', '/session', {}, { email: 'admin@example.com', password });
      const parallel = await Promise.all(Array.from({ length: 15 }, (_, i) => attempt(`wrong-${i}`)));
      const checked = parallel.filter((r) => r.status === 401).length;
      t.ok(checked <= maxFailures, `${checked} of 15 reached the password check`);
      for (const r of parallel.filter((r) => r.status !== 401))
        t.match(r, { status: 429, body: error('rate_limited') });
      // The attempts refused as busy were not counted: sequential ones make up the rest of the limit, and no more.
      let sequential = 0;
      while (sequential <= maxFailures && (await attempt('wrong')).status === 401) sequential++;
      t.equal(checked + sequential, maxFailures, 'exactly the limit reached the password check');
      const limited = await attempt(passwords.admin);
      t.match(limited, { status: 429, body: error('rate_limited') }, 'the right password is refused while limited');
      t.equal(limited.headers.get('retry-after'), String(windowMs / 1000));
      nowMs += windowMs;
      t.equal((await attempt(passwords.admin)).status, 200, 'the window passed');
    });

    t.test('within the hash bound, parallel attempts past the limit are refused before their check', async (t) => {
      const { maxFailures, maxConcurrent, windowMs } = DEFAULT_SIGN_IN_LIMITS;
      const attempt = () => req('POST', '/session', {}, { email: 'viewer@example.com', password: 'wrong' });
      for (let i = 0; i < maxFailures - 2; i++) t.equal((await attempt()).status, 401);
      const parallel = await Promise.all(Array.from({ length: maxConcurrent }, attempt));
      t.same(parallel.map((r) => r.status).sort(), [401, 401, 429, 429], 'two slots were left, not four');
      nowMs += windowMs;
    });

    t.test('at most maxConcurrent sign-in hashes run at once; beyond, 429 with Retry-After 1', async (t) => {
      const { maxConcurrent } = DEFAULT_SIGN_IN_LIMITS;
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          req('POST', '/session', {}, { email: `flood-${i}@example.com`, password: 'x' }),
        ),
      );
      const busy = answers.filter((r) => r.status === 429);
      t.ok(answers.filter((r) => r.status === 401).length >= maxConcurrent, 'the first ones are checked');
      t.ok(busy.length > 0, `${busy.length} of 16 refused as busy`);
      for (const r of busy) {
        t.match(r.body, { error: { code: 'rate_limited', message: /in progress/ } });
        t.equal(r.headers.get('retry-after'), '1');
      }
      t.equal(
        (await req('POST', '/session', {}, { email: 'member@example.com', password: passwords.member })).status,
        200,
        'free again once they finished',
      );
    });

    t.test('a session expires after dashboard.session_hours on the service clock', async (t) => {
      const member = await signIn(s, 'member@example.com', passwords.member);
      nowMs += SESSION_HOURS * 3_600_000 - 1_000;
      t.equal((await member.call('GET', '/session')).status, 200, 'a second before');
      nowMs += 1_000;
      t.match(await member.call('GET', '/session'), { status: 401, body: error('unauthenticated') }, 'at expiry');
    });
  });
}
