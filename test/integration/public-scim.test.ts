// SCIM Users and organization memberships (docs/public-api.md "Memberships and SCIM") with an organization key: create,
// list, filter, get, patch (both PatchOp forms), replace, delete; duplicates; a deactivated user cannot sign in to the
// dashboard; a new password ends sessions; SCIM media type and error schema; a project key gets 403; memberships and
// their roles; the key never makes or touches an owner nor sets an admin's password. Both backends.
import t from 'tap';
import { listAudit, listOrganizationAudit } from '../../src/platform/store/repos/audit-log.ts';
import { createProject, ensureOrganization } from '../../src/platform/store/repos/projects.ts';
import { dashboardRequest, signIn } from '../helpers/dashboard.ts';
import { basicAuth as auth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';
import type { TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const NEEDS_ORG_KEY = 'Access denied - this endpoint needs an organization API key';

/** A SCIM request: bodies go as application/scim+json (a string as is). */
async function scim(s: TestService, method: string, path: string, authorization: string, body?: unknown) {
  const res = await fetch(`${s.adminUrl}/api/public/scim${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    location: res.headers.get('location'),
    body: text === '' ? undefined : JSON.parse(text),
  };
}

const scimError = (status: number, scimType?: string) => ({
  status,
  body: { schemas: [ERROR], status: String(status), detail: String, ...(scimType ? { scimType } : {}) },
});
const signInStatus = async (s: TestService, email: string, password: string) =>
  (await dashboardRequest(s, 'POST', '/session', {}, { email, password })).status;

for (const backend of STORE_BACKENDS) {
  t.test(`SCIM and memberships on ${backend}`, async (t) => {
    const { s, db, key, orgKey } = await startPublicApiService(t, backend);
    const org = auth(orgKey);
    const owner = s.service.firstOwner!;
    let ada: { id: string; meta: { location: string } } & Record<string, any>;

    t.test('a project key gets 403 in the SCIM error schema; no key 401', async (t) => {
      for (const [method, path, body] of [
        ['GET', '/Users'],
        ['POST', '/Users', { userName: 'x@example.com' }],
        ['GET', '/ServiceProviderConfig'],
        ['PATCH', '/Users/x', { Operations: [] }],
      ] as const) {
        const r = await scim(s, method, path, auth(key), body);
        t.same(r.body, { schemas: [ERROR], status: '403', detail: NEEDS_ORG_KEY }, `${method} ${path}`);
        t.equal(r.status, 403);
        t.equal(r.type, 'application/scim+json; charset=utf-8');
      }
      t.match(await scim(s, 'GET', '/Users', ''), scimError(401));
      for (const [method, path] of [
        ['GET', '/organizations/memberships'],
        ['PUT', '/organizations/memberships'],
        ['GET', '/projects/default/memberships'],
      ]) {
        t.same(
          await callAdmin(
            s,
            method,
            `/api/public${path}`,
            auth(key),
            method === 'PUT' ? { userId: 'x', role: 'ADMIN' } : undefined,
          ),
          { status: 403, body: { message: NEEDS_ORG_KEY, error: 'ForbiddenError' } },
          `${method} ${path}`,
        );
      }
    });

    t.test('discovery documents', async (t) => {
      const config = await scim(s, 'GET', '/ServiceProviderConfig', org);
      t.match(config, {
        status: 200,
        type: 'application/scim+json; charset=utf-8',
        body: {
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
          patch: { supported: true },
          filter: { supported: true },
          bulk: { supported: false },
        },
      });
      const types = await scim(s, 'GET', '/ResourceTypes', org);
      t.match(types.body, {
        schemas: [LIST],
        totalResults: 1,
        Resources: [{ id: 'User', endpoint: '/Users', schema: USER }],
      });
      const schemas = await scim(s, 'GET', '/Schemas', org);
      t.match(schemas.body, { schemas: [LIST], totalResults: 1, Resources: [{ id: USER, attributes: Array }] });
      t.ok(schemas.body.Resources[0].attributes.some((a: any) => a.name === 'userName' && a.uniqueness === 'server'));
      t.match(await scim(s, 'GET', `/Schemas/${USER}`, org), { status: 200, body: { id: USER } });
      t.match(await scim(s, 'GET', '/Groups', org), scimError(404));
    });

    t.test('POST /Users creates a user who signs in with the password given', async (t) => {
      const r = await scim(s, 'POST', '/Users', org, {
        schemas: [USER],
        userName: 'ada@example.com',
        name: { givenName: 'Ada', familyName: 'Lovelace' },
        emails: [{ value: 'ada@example.com', primary: true, type: 'work' }],
        externalId: 'okta-123',
        password: 'correct horse battery staple',
        active: true,
        title: 'Countess',
      });
      t.equal(r.status, 201);
      t.equal(r.type, 'application/scim+json; charset=utf-8');
      t.match(r.body, {
        schemas: [USER],
        id: String,
        externalId: 'okta-123',
        userName: 'ada@example.com',
        name: { formatted: 'Ada Lovelace' },
        emails: [{ value: 'ada@example.com', primary: true }],
        active: true,
        meta: { resourceType: 'User', created: String, lastModified: String },
      });
      t.notOk('password' in r.body, 'the password is never returned');
      t.equal(r.location, `${s.adminUrl}/api/public/scim/Users/${r.body.id}`);
      t.equal(r.body.meta.location, r.location);
      ada = r.body;
      t.equal(await signInStatus(s, 'ada@example.com', 'correct horse battery staple'), 200);
      const me = await signIn(s, 'ada@example.com', 'correct horse battery staple');
      t.equal(me.user.role, 'viewer', 'SCIM users start as viewers');
      const noPassword = await scim(s, 'POST', '/Users', org, { userName: 'grace@example.com', displayName: 'Grace' });
      t.match(noPassword, {
        status: 201,
        body: { userName: 'grace@example.com', name: { formatted: 'Grace' }, active: true },
      });
      t.equal(await signInStatus(s, 'grace@example.com', ''), 401, 'no password: no sign-in');
      const json = await callAdmin(s, 'POST', '/api/public/scim/Users', org, {
        userName: 'linus@example.com',
        roles: [{ value: 'MEMBER' }],
      });
      t.match(json, { status: 201, body: { userName: 'linus@example.com' } }, 'application/json bodies work too');
    });

    t.test('POST /Users refuses duplicates (409 uniqueness) and bad bodies', async (t) => {
      t.match(await scim(s, 'POST', '/Users', org, { userName: 'ADA@Example.com' }), scimError(409, 'uniqueness'));
      t.match(await scim(s, 'POST', '/Users', org, { userName: 'not-an-email' }), scimError(400, 'invalidValue'));
      t.match(
        await scim(s, 'POST', '/Users', org, { name: { formatted: 'No user name' } }),
        scimError(400, 'invalidValue'),
      );
      t.match(
        await scim(s, 'POST', '/Users', org, { userName: 'x@example.com', active: 'maybe' }),
        scimError(400, 'invalidValue'),
      );
      t.match(
        await scim(s, 'POST', '/Users', org, { userName: 'x@example.com', roles: [{ value: 'NONE' }] }),
        scimError(400, 'invalidValue'),
      );
      t.match(await scim(s, 'POST', '/Users', org, '{"userName":'), scimError(400, 'invalidSyntax'));
    });

    t.test('GET /Users lists, filters by userName and pages', async (t) => {
      const all = await scim(s, 'GET', '/Users', org);
      t.match(all.body, { schemas: [LIST], totalResults: 4, startIndex: 1, itemsPerPage: 4 });
      t.same(
        all.body.Resources.map((u: any) => u.userName),
        ['owner@localhost', 'ada@example.com', 'grace@example.com', 'linus@example.com'],
      );
      const one = await scim(s, 'GET', `/Users?filter=${encodeURIComponent('userName eq "ADA@example.com"')}`, org);
      t.match(one.body, { totalResults: 1, itemsPerPage: 1, Resources: [{ id: ada.id, userName: 'ada@example.com' }] });
      const none = await scim(s, 'GET', `/Users?filter=${encodeURIComponent('userName Eq "nobody@example.com"')}`, org);
      t.match(none.body, { totalResults: 0, itemsPerPage: 0, Resources: [] });
      const page = await scim(s, 'GET', '/Users?startIndex=2&count=2', org);
      t.match(page.body, { totalResults: 4, startIndex: 2, itemsPerPage: 2 });
      t.same(
        page.body.Resources.map((u: any) => u.userName),
        ['ada@example.com', 'grace@example.com'],
      );
      t.match((await scim(s, 'GET', '/Users?count=0', org)).body, { totalResults: 4, itemsPerPage: 0, Resources: [] });
      t.match(
        await scim(s, 'GET', `/Users?filter=${encodeURIComponent('emails co "example"')}`, org),
        scimError(400, 'invalidFilter'),
      );
    });

    t.test('GET /Users/{id}', async (t) => {
      t.same((await scim(s, 'GET', `/Users/${ada.id}`, org)).body, ada);
      t.match(await scim(s, 'GET', '/Users/no-such-user', org), scimError(404));
    });

    t.test('PATCH active=false deactivates: sessions end and sign-in fails; the value form reactivates', async (t) => {
      const session = await signIn(s, 'ada@example.com', 'correct horse battery staple');
      const off = await scim(s, 'PATCH', `/Users/${ada.id}`, org, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      });
      t.match(off, { status: 200, type: 'application/scim+json; charset=utf-8', body: { id: ada.id, active: false } });
      t.equal((await session.call('GET', '/session')).status, 401, 'the session stopped working');
      t.equal(await signInStatus(s, 'ada@example.com', 'correct horse battery staple'), 401, 'cannot sign in');
      // Azure AD: op in capitals, a path-less value, booleans as strings.
      const on = await scim(s, 'PATCH', `/Users/${ada.id}`, org, {
        schemas: [PATCH],
        Operations: [{ op: 'Replace', value: { active: 'True', 'name.formatted': 'Ada King' } }],
      });
      t.match(on.body, { active: true, name: { formatted: 'Ada King' } });
      const okta = await scim(s, 'PATCH', `/Users/${ada.id}`, org, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { active: false } }],
      });
      t.match(okta.body, { active: false });
      const back = await scim(s, 'PATCH', `/Users/${ada.id}`, org, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { active: true, password: 'an interim password' } }],
      });
      t.match(back.body, { active: true });
      const interim = await signIn(s, 'ada@example.com', 'an interim password');
      const reset = await scim(s, 'PATCH', `/Users/${ada.id}`, org, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'password', value: 'a new password' }],
      });
      t.equal(reset.status, 200);
      t.equal((await interim.call('GET', '/session')).status, 401, 'a new password ends the sessions');
      t.equal(await signInStatus(s, 'ada@example.com', 'an interim password'), 401);
      t.equal(await signInStatus(s, 'ada@example.com', 'a new password'), 200);
      t.match(
        await scim(s, 'PATCH', `/Users/${ada.id}`, org, { Operations: [{ op: 'move', path: 'active' }] }),
        scimError(400, 'invalidSyntax'),
      );
      t.match(
        await scim(s, 'PATCH', `/Users/${ada.id}`, org, {
          Operations: [{ op: 'replace', path: 'active', value: 'perhaps' }],
        }),
        scimError(400, 'invalidValue'),
      );
      t.match(await scim(s, 'PATCH', `/Users/${ada.id}`, org, {}), scimError(400, 'invalidSyntax'));
      t.match(
        await scim(s, 'PATCH', '/Users/no-such-user', org, {
          Operations: [{ op: 'replace', path: 'active', value: false }],
        }),
        scimError(404),
      );
    });

    t.test('PUT /Users/{id} replaces; an owner cannot be deactivated', async (t) => {
      const r = await scim(s, 'PUT', `/Users/${ada.id}`, org, {
        schemas: [USER],
        userName: 'ada@example.com',
        name: { formatted: 'Ada' },
        active: true,
      });
      t.match(r, { status: 200, body: { name: { formatted: 'Ada' }, active: true } });
      t.notOk('externalId' in r.body, 'externalId absent from the replacement is cleared');
      const ownerId = (
        await scim(s, 'GET', `/Users?filter=${encodeURIComponent('userName eq "owner@localhost"')}`, org)
      ).body.Resources[0].id;
      t.match(
        await scim(s, 'PATCH', `/Users/${ownerId}`, org, {
          Operations: [{ op: 'replace', path: 'active', value: false }],
        }),
        scimError(403),
      );
      t.equal(await signInStatus(s, owner.email, owner.password), 200);
    });

    t.test('memberships: list, set a role, remove; project memberships mirror them', async (t) => {
      const call = (method: string, path: string, body?: unknown) =>
        callAdmin(s, method, `/api/public${path}`, org, body);
      const list = await call('GET', '/organizations/memberships');
      t.equal(list.status, 200);
      t.same(
        list.body.memberships.map((m: any) => [m.email, m.role]),
        [
          ['owner@localhost', 'OWNER'],
          ['ada@example.com', 'VIEWER'],
          ['grace@example.com', 'VIEWER'],
          ['linus@example.com', 'MEMBER'],
        ],
      );
      t.match(list.body.memberships[1], { userId: ada.id, role: 'VIEWER', email: 'ada@example.com', name: 'Ada' });
      const put = await call('PUT', '/organizations/memberships', { userId: ada.id, role: 'ADMIN' });
      t.same(put, { status: 200, body: { userId: ada.id, role: 'ADMIN', email: 'ada@example.com', name: 'Ada' } });
      t.equal(
        (await signIn(s, 'ada@example.com', 'a new password')).user.role,
        'admin',
        'the dashboard sees the new role',
      );
      t.match(await call('PUT', '/organizations/memberships', { userId: ada.id, role: 'NONE' }), {
        status: 400,
        body: { message: 'Invalid request data' },
      });
      t.match(await call('PUT', '/organizations/memberships', { userId: 'nobody', role: 'ADMIN' }), {
        status: 404,
        body: { error: 'NotFoundError' },
      });
      const ownerId = list.body.memberships[0].userId;
      t.match(
        await call('PUT', '/organizations/memberships', { userId: ownerId, role: 'MEMBER' }),
        { status: 403, body: { error: 'ForbiddenError' } },
        'owners are out of reach',
      );
      t.same(
        (await call('GET', '/projects/default/memberships')).body,
        (await call('GET', '/organizations/memberships')).body,
      );
      await ensureOrganization(db, { id: 'acme', name: 'Acme' });
      await createProject(db, { id: 'acme-1', organizationId: 'acme', name: 'Acme One', metadata: {} });
      t.match(await call('GET', '/projects/acme-1/memberships'), { status: 404 });
      t.match(
        await call('PUT', '/projects/default/memberships', { userId: ada.id, role: 'ADMIN' }),
        { status: 405, body: { error: 'MethodNotAllowedError' } },
        'project memberships are read-only',
      );
      const gone = await call('DELETE', '/organizations/memberships', { userId: ada.id });
      t.same(gone, { status: 200, body: { message: 'Membership deleted successfully', userId: ada.id } });
      t.equal(await signInStatus(s, 'ada@example.com', 'a new password'), 401);
      t.match(await call('DELETE', '/organizations/memberships', { userId: ada.id }), { status: 404 });
    });

    t.test('DELETE /Users/{id}; changes are audited with the key as actor', async (t) => {
      const grace = (
        await scim(s, 'GET', `/Users?filter=${encodeURIComponent('userName eq "grace@example.com"')}`, org)
      ).body.Resources[0];
      const r = await scim(s, 'DELETE', `/Users/${grace.id}`, org);
      t.equal(r.status, 204);
      t.match(await scim(s, 'GET', `/Users/${grace.id}`, org), scimError(404));
      t.match(await scim(s, 'DELETE', `/Users/${grace.id}`, org), scimError(404));
      const { data: rows } = await listOrganizationAudit(db, 'default', { limit: 100, offset: 0 });
      const actions = rows.filter((x) => x.actor === `api-key:${orgKey.id}`).map((x) => x.action);
      for (const action of ['user.create', 'user.update', 'user.delete']) t.ok(actions.includes(action), action);
      t.same(await listAudit(db, 'no-project'), [], 'user rows belong to no project');
    });

    t.test('the organization key never makes or touches an owner, nor sets an admin’s password', async (t) => {
      const call = (method: string, path: string, body?: unknown) =>
        callAdmin(s, method, `/api/public${path}`, org, body);
      const forbidden = { status: 403, body: { error: 'ForbiddenError', message: String } };
      const ownerId = (
        await scim(s, 'GET', `/Users?filter=${encodeURIComponent('userName eq "owner@localhost"')}`, org)
      ).body.Resources[0].id;
      const keyRows = async () =>
        (await listOrganizationAudit(db, 'default', { limit: 1000, offset: 0 })).data.filter(
          (x) => x.actor === `api-key:${orgKey.id}`,
        );
      const before = (await keyRows()).length;

      const mint = await scim(s, 'POST', '/Users', org, {
        userName: 'mallory@example.com',
        password: 'chosen by mallory',
        roles: [{ value: 'owner' }],
      });
      t.match(mint, scimError(403));
      t.match(mint.body.detail, /cannot grant the owner role/);
      t.equal(await signInStatus(s, 'mallory@example.com', 'chosen by mallory'), 401, 'no owner was made');
      const linus = (
        await scim(s, 'GET', `/Users?filter=${encodeURIComponent('userName eq "linus@example.com"')}`, org)
      ).body.Resources[0];
      t.match(await call('PUT', '/organizations/memberships', { userId: linus.id, role: 'OWNER' }), forbidden);

      const takeover = [
        scim(s, 'PATCH', `/Users/${ownerId}`, org, {
          schemas: [PATCH],
          Operations: [{ op: 'replace', path: 'password', value: 'taken over' }],
        }),
        scim(s, 'PATCH', `/Users/${ownerId}`, org, {
          schemas: [PATCH],
          Operations: [{ op: 'replace', path: 'displayName', value: 'Renamed' }],
        }),
        scim(s, 'PUT', `/Users/${ownerId}`, org, { userName: 'owner@localhost', password: 'taken over' }),
        scim(s, 'PUT', `/Users/${ownerId}`, org, { userName: 'attacker@example.com' }),
        scim(s, 'DELETE', `/Users/${ownerId}`, org),
      ];
      for (const r of await Promise.all(takeover)) t.match(r, scimError(403));
      t.match(await call('PUT', '/organizations/memberships', { userId: ownerId, role: 'OWNER' }), forbidden);
      t.match(await call('PUT', '/organizations/memberships', { userId: ownerId, role: 'ADMIN' }), forbidden);
      t.match(await call('DELETE', '/organizations/memberships', { userId: ownerId }), forbidden);
      t.equal(await signInStatus(s, owner.email, 'taken over'), 401);
      t.equal(await signInStatus(s, owner.email, owner.password), 200, 'the owner is untouched');
      t.match((await scim(s, 'GET', `/Users/${ownerId}`, org)).body, {
        userName: 'owner@localhost',
        name: { formatted: 'Owner' },
        active: true,
      });

      // An admin may be created with a password, but SCIM cannot reset an admin's password afterwards.
      const admin = await scim(s, 'POST', '/Users', org, {
        userName: 'ops@example.com',
        password: 'first password',
        roles: [{ value: 'ADMIN' }],
      });
      t.equal(admin.status, 201);
      t.equal((await signIn(s, 'ops@example.com', 'first password')).user.role, 'admin');
      const reset = await scim(s, 'PATCH', `/Users/${admin.body.id}`, org, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { displayName: 'Ops', password: 'reset by key' } }],
      });
      t.match(reset, scimError(403));
      t.match(reset.body.detail, /ops@example\.com is an admin: SCIM sets passwords only on members and viewers/);
      t.match(
        await scim(s, 'PUT', `/Users/${admin.body.id}`, org, { userName: 'ops@example.com', password: 'reset by key' }),
        scimError(403),
      );
      t.equal(await signInStatus(s, 'ops@example.com', 'reset by key'), 401);
      t.equal(await signInStatus(s, 'ops@example.com', 'first password'), 200, 'the admin’s password stands');
      t.match(
        (await scim(s, 'GET', `/Users/${admin.body.id}`, org)).body,
        { name: { formatted: '' } },
        'a refused change changes nothing',
      );
      t.match(
        await scim(s, 'PATCH', `/Users/${admin.body.id}`, org, {
          Operations: [{ op: 'replace', path: 'active', value: false }],
        }),
        { status: 200, body: { active: false } },
        'other changes of an admin are allowed',
      );
      const rows = await keyRows();
      t.same(
        rows.slice(0, rows.length - before).map((x) => x.action),
        ['user.update', 'user.create'],
        'only the admin’s creation and deactivation',
      );
      t.notOk(
        rows.some((x) => x.resourceId === ownerId),
        'nothing done to the owner',
      );
    });
  });
}
