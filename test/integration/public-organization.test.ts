// Organization endpoints of the public API (docs/public-api.md "Organization endpoints"): projects (list, create,
// rename, delete) and project API keys (list, create, delete) with an organization key; a project key gets 403, an
// organization key on a project route stays 401; gateway.yaml projects refuse rename and delete; audit rows. Both backends.
import t from 'tap';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { listAudit } from '../../src/platform/store/repos/audit-log.ts';
import { createProject, ensureOrganization, getProject } from '../../src/platform/store/repos/projects.ts';
import { basicAuth as auth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';
import type { TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';
import { waitFor } from '../helpers/wait-for.ts';

const call = (s: TestService, method: string, path: string, authorization: string, body?: unknown) =>
  callAdmin(s, method, `/api/public${path}`, authorization, body);

const NEEDS_ORG_KEY = 'Access denied - this endpoint needs an organization API key';
const ORG_KEY_ON_PROJECT_ROUTE = 'Invalid API key. Are you using an organization key?';

for (const backend of STORE_BACKENDS) {
  t.test(`organization endpoints on ${backend}`, async (t) => {
    const { s, db, key, ingestKey, orgKey } = await startPublicApiService(t, backend);
    const org = auth(orgKey);
    const actor = `api-key:${orgKey.id}`;
    // A project of another organization: invisible to this organization's key.
    await ensureOrganization(db, { id: 'acme', name: 'Acme' });
    await createProject(db, { id: 'acme-1', organizationId: 'acme', name: 'Acme One', metadata: {} });

    t.test(
      'a project key gets 403 on every organization route; an organization key on a project route stays 401',
      async (t) => {
        const routes: [string, string, unknown?][] = [
          ['POST', '/projects', { name: 'x' }],
          ['PUT', '/projects/default', { name: 'x' }],
          ['DELETE', '/projects/default'],
          ['GET', '/projects/default/apiKeys'],
          ['POST', '/projects/default/apiKeys', {}],
          ['DELETE', '/projects/default/apiKeys/nope'],
        ];
        for (const k of [key, ingestKey]) {
          for (const [method, path, body] of routes) {
            const r = await call(s, method, path, auth(k), body);
            t.same(r, { status: 403, body: { message: NEEDS_ORG_KEY, error: 'ForbiddenError' } }, `${method} ${path}`);
          }
        }
        for (const path of ['/traces', '/scores']) {
          t.same(
            await call(s, 'GET', path, org),
            { status: 401, body: { message: ORG_KEY_ON_PROJECT_ROUTE, error: 'UnauthorizedError' } },
            path,
          );
        }
        const anon = await call(s, 'GET', '/projects/default/apiKeys', '');
        t.equal(anon.status, 401, 'no key is 401');
        const sevenMonthsAgo = new Date();
        sevenMonthsAgo.setUTCMonth(sevenMonthsAgo.getUTCMonth() - 7);
        const expired = await createApiKey(db, {
          kind: 'organization',
          organizationId: 'default',
          now: sevenMonthsAgo.getTime(),
        });
        t.same(await call(s, 'POST', '/projects', auth(expired), { name: 'late' }), {
          status: 401,
          body: { message: 'API key has expired.', error: 'UnauthorizedError' },
        });
      },
    );

    t.test(
      'GET /projects: a project key sees its project, an organization key the organization’s projects',
      async (t) => {
        const own = await call(s, 'GET', '/projects', auth(key));
        t.same(own, {
          status: 200,
          body: {
            data: [
              {
                id: 'default',
                name: 'Default',
                organization: { id: 'default', name: 'Default organization' },
                metadata: {},
              },
            ],
          },
        });
        const ingest = await call(s, 'GET', '/projects', auth(ingestKey));
        t.equal(ingest.status, 200, 'ingestion-only project key still passes the credential check');
        const all = await call(s, 'GET', '/projects', org);
        t.equal(all.status, 200);
        t.same(all.body.data.map((p: any) => p.id).sort(), ['default', 'ingest']);
      },
    );

    let created: { id: string } = { id: '' };
    t.test('POST /projects creates a project; invalid bodies and taken names are refused', async (t) => {
      const r = await call(s, 'POST', '/projects', org, { name: ' Research ', metadata: { team: 'ml' }, retention: 0 });
      t.equal(r.status, 200);
      t.match(r.body, {
        id: /^[0-9a-f-]{36}$/,
        name: 'Research',
        organization: { id: 'default' },
        metadata: { team: 'ml' },
      });
      created = r.body;
      t.match(await getProject(db, created.id), {
        name: 'Research',
        organizationId: 'default',
        ingestionOnly: false,
        metadata: { team: 'ml' },
      });
      const invalid: [unknown, RegExp][] = [
        [{}, /name.*is required/],
        [{ name: '' }, /name/],
        [{ name: '   ' }, /name/],
        [{ name: 'x', metadata: [] }, /metadata/],
        [{ name: 'x', retention: 2 }, /retention/],
        [{ name: 'x', retention: -1 }, /retention/],
        [{ name: 'x', retention: 1.5 }, /retention/],
        [{ name: 'x', extra: 1, retention: 2 }, /retention/],
      ];
      for (const [body, issue] of invalid) {
        const bad = await call(s, 'POST', '/projects', org, body);
        t.equal(bad.status, 400, JSON.stringify(body));
        t.equal(bad.body.message, 'Invalid request data');
        t.match(JSON.stringify(bad.body.error), issue);
      }
      const dup = await call(s, 'POST', '/projects', org, { name: 'Research' });
      t.same(dup.status, 409);
      t.equal(dup.body.error, 'ConflictError');
      t.match(await listAudit(db, created.id), [
        { actor, action: 'project.create', resourceType: 'project', resourceId: created.id, organizationId: 'default' },
      ]);
    });

    t.test('PUT /projects/{id} renames and replaces metadata; gateway.yaml projects keep their name', async (t) => {
      const r = await call(s, 'PUT', `/projects/${created.id}`, org, { name: 'Research 2', metadata: { team: 'ai' } });
      t.equal(r.status, 200);
      t.match(r.body, { id: created.id, name: 'Research 2', metadata: { team: 'ai' } });
      const kept = await call(s, 'PUT', `/projects/${created.id}`, org, { name: 'Research 3' });
      t.same(kept.body.metadata, { team: 'ai' }, 'metadata absent: kept');
      const [latest] = await listAudit(db, created.id);
      t.match(latest, { actor, action: 'project.update', details: { name: { from: 'Research 2', to: 'Research 3' } } });

      const declared = await call(s, 'PUT', '/projects/default', org, { name: 'Renamed' });
      t.equal(declared.status, 409);
      t.match(declared.body, { error: 'ConflictError', message: /declared in gateway\.yaml/ });
      const meta = await call(s, 'PUT', '/projects/default', org, { name: 'Default', metadata: { tier: 'gold' } });
      t.match(
        meta,
        { status: 200, body: { name: 'Default', metadata: { tier: 'gold' } } },
        'metadata of a declared project may change',
      );
      t.equal((await call(s, 'PUT', '/projects/default', org, { name: 'Research 3' })).status, 409, 'taken name');
      t.match(await call(s, 'PUT', '/projects/nope', org, { name: 'x' }), {
        status: 404,
        body: { error: 'NotFoundError' },
      });
      t.match(
        await call(s, 'PUT', '/projects/acme-1', org, { name: 'x' }),
        { status: 404 },
        'another organization’s project',
      );
      t.equal((await call(s, 'PUT', `/projects/${created.id}`, org, { metadata: {} })).status, 400);
    });

    t.test(
      'project API keys: create returns the secret once, list never does, the key works until deleted',
      async (t) => {
        const r = await call(s, 'POST', `/projects/${created.id}/apiKeys`, org, { note: 'ci' });
        t.equal(r.status, 200);
        t.match(r.body, {
          id: String,
          publicKey: /^pk-svc-/,
          secretKey: /^sk-svc-/,
          displaySecretKey: /^sk-svc-.*\.\.\./,
          note: 'ci',
        });
        const months = (Date.parse(r.body.expiresAt) - Date.parse(r.body.createdAt)) / (24 * 3600 * 1000);
        t.ok(months >= 181 && months <= 184, 'expires six months after creation');
        const noBody = await callAdmin(s, 'POST', `/api/public/projects/${created.id}/apiKeys`, org);
        t.match(noBody, { status: 200, body: { note: null } }, 'no body: a key without note');

        const list = await call(s, 'GET', `/projects/${created.id}/apiKeys`, org);
        t.equal(list.status, 200);
        t.equal(list.body.apiKeys.length, 2);
        t.same(Object.keys(list.body.apiKeys[0]).sort(), [
          'createdAt',
          'displaySecretKey',
          'expiresAt',
          'id',
          'lastUsedAt',
          'note',
          'publicKey',
        ]);
        t.notOk(JSON.stringify(list.body).includes(r.body.secretKey), 'no secret in the list');

        const newKey = auth(r.body);
        t.match(await call(s, 'GET', '/projects', newKey), {
          status: 200,
          body: { data: [{ id: created.id, name: 'Research 3' }] },
        });
        const used = await waitFor('lastUsedAt recorded', async () => {
          const keys = (await call(s, 'GET', `/projects/${created.id}/apiKeys`, org)).body.apiKeys;
          return keys.find((k: any) => k.id === r.body.id && k.lastUsedAt !== null);
        });
        t.ok(Math.abs(Date.parse(used.lastUsedAt) - Date.now()) < 60_000, 'lastUsedAt is the time of use');
        const unused = (await call(s, 'GET', `/projects/${created.id}/apiKeys`, org)).body.apiKeys.find(
          (k: any) => k.id === noBody.body.id,
        );
        t.equal(unused.lastUsedAt, null, 'a key never used has none');
        const del = await call(s, 'DELETE', `/projects/${created.id}/apiKeys/${r.body.id}`, org);
        t.same(del, { status: 200, body: { success: true } });
        t.equal((await call(s, 'GET', '/projects', newKey)).status, 401, 'deleted key no longer works');
        t.equal(
          (await call(s, 'DELETE', `/projects/${created.id}/apiKeys/${r.body.id}`, org)).status,
          404,
          'already deleted',
        );
        t.equal(
          (await call(s, 'DELETE', `/projects/default/apiKeys/${noBody.body.id}`, org)).status,
          404,
          'key of another project',
        );
        t.equal(
          (await call(s, 'DELETE', `/projects/${created.id}/apiKeys/${orgKey.id}`, org)).status,
          404,
          'the organization key is not a project key',
        );
        const actions = (await listAudit(db, created.id)).map((a) => [a.action, a.resourceId, a.actor]);
        t.same(actions.slice(0, 3), [
          ['api_key.delete', r.body.id, actor],
          ['api_key.create', noBody.body.id, actor],
          ['api_key.create', r.body.id, actor],
        ]);

        t.equal((await call(s, 'POST', `/projects/${created.id}/apiKeys`, org, { note: 1 })).status, 400);
        t.equal((await call(s, 'POST', `/projects/${created.id}/apiKeys`, org, { secretKey: 'mine' })).status, 400);
        for (const [method, path] of [
          ['GET', '/projects/nope/apiKeys'],
          ['POST', '/projects/acme-1/apiKeys'],
          ['GET', '/projects/acme-1/apiKeys'],
        ]) {
          t.equal(
            (await call(s, method, path, org, method === 'POST' ? {} : undefined)).status,
            404,
            `${method} ${path}`,
          );
        }
      },
    );

    t.test(
      "retention: traces older than the project's retention are deleted with their observations and scores",
      async (t) => {
        const day = 86_400_000;
        const ago = (days: number) => new Date(Date.now() - days * day).toISOString();
        const batch = [
          {
            id: 'r1',
            type: 'trace-create',
            timestamp: ago(0),
            body: { id: 'tr-old', name: 'old', timestamp: ago(10) },
          },
          {
            id: 'r2',
            type: 'span-create',
            timestamp: ago(0),
            body: { id: 'sp-old', traceId: 'tr-old', startTime: ago(10) },
          },
          {
            id: 'r3',
            type: 'score-create',
            timestamp: ago(0),
            body: { id: 'sc-old', traceId: 'tr-old', name: 'q', value: 1 },
          },
          { id: 'r4', type: 'trace-create', timestamp: ago(0), body: { id: 'tr-new', name: 'new', timestamp: ago(6) } },
        ];
        t.same((await call(s, 'POST', '/ingestion', auth(key), { batch })).body.errors, []);
        t.equal(await s.service.retention.runOnce(), 0, 'no retention set: nothing deleted');
        const set = await call(s, 'PUT', '/projects/default', org, { name: 'Default', retention: 7 });
        t.match(
          set,
          { status: 200, body: { id: 'default', retentionDays: 7 } },
          'a declared project may set its retention',
        );
        t.match((await listAudit(db, 'default'))[0], {
          action: 'project.update',
          details: { retention: { from: 0, to: 7 } },
        });
        t.equal(await s.service.retention.runOnce(), 1);
        t.equal((await call(s, 'GET', '/traces/tr-old', auth(key))).status, 404, 'the trace past retention is gone');
        t.equal((await call(s, 'GET', '/observations/sp-old', auth(key))).status, 404, 'with its observations');
        t.equal((await call(s, 'GET', '/scores/sc-old', auth(key))).status, 404, 'and its scores');
        t.equal((await call(s, 'GET', '/traces/tr-new', auth(key))).status, 200, 'a trace within retention stays');
        const off = await call(s, 'PUT', '/projects/default', org, { name: 'Default', retention: 0 });
        t.notOk('retentionDays' in off.body, 'retention 0: kept forever, no retentionDays');
        t.equal(
          (await call(s, 'PUT', '/projects/default', org, { name: 'Default', retention: 2 })).status,
          400,
          'below 3 days',
        );
      },
    );

    t.test('DELETE /projects/{id}: 202, its keys stop working; gateway.yaml projects answer 409', async (t) => {
      const survivor = await createApiKey(db, {
        kind: 'project',
        organizationId: 'default',
        projectId: created.id,
        now: Date.now(),
      });
      t.equal((await call(s, 'GET', '/projects', auth(survivor))).status, 200);
      const batch = [
        { id: 'd1', type: 'trace-create', timestamp: new Date().toISOString(), body: { id: 'tr-gone', name: 'x' } },
        {
          id: 'd2',
          type: 'span-create',
          timestamp: new Date().toISOString(),
          body: { id: 'sp-gone', traceId: 'tr-gone', startTime: new Date().toISOString() },
        },
        {
          id: 'd3',
          type: 'score-create',
          timestamp: new Date().toISOString(),
          body: { id: 'sc-gone', traceId: 'tr-gone', name: 'q', value: 1 },
        },
      ];
      t.same((await call(s, 'POST', '/ingestion', auth(survivor), { batch })).body.errors, []);
      const rowsOfProject = async () =>
        (
          await db.query<{ n: unknown }>(
            `SELECT (SELECT count(*) FROM traces WHERE project_id = $1) + (SELECT count(*) FROM observations
               WHERE project_id = $1) + (SELECT count(*) FROM scores WHERE project_id = $1) AS n`,
            [created.id],
          )
        ).rows[0].n;
      t.equal(Number(await rowsOfProject()), 3, 'the project has a trace, an observation and a score');
      const r = await call(s, 'DELETE', `/projects/${created.id}`, org);
      t.match(r, { status: 202, body: { success: true } });
      t.equal(await getProject(db, created.id), undefined);
      t.equal(Number(await rowsOfProject()), 0, 'its traces, observations and scores are deleted with it');
      t.equal(
        (await call(s, 'GET', '/projects', auth(survivor))).status,
        401,
        "the deleted project's keys stop working",
      );
      t.match((await listAudit(db, created.id))[0], {
        actor,
        action: 'project.delete',
        resourceId: created.id,
        details: { name: 'Research 3' },
      });
      t.equal((await call(s, 'DELETE', `/projects/${created.id}`, org)).status, 404, 'already deleted');
      t.equal((await call(s, 'DELETE', '/projects/acme-1', org)).status, 404, 'another organization’s project');
      const declared = await call(s, 'DELETE', '/projects/default', org);
      t.match(declared, { status: 409, body: { error: 'ConflictError', message: /declared in gateway\.yaml/ } });
      t.ok(await getProject(db, 'default'));
      t.same((await call(s, 'GET', '/projects', org)).body.data.map((p: any) => p.id).sort(), ['default', 'ingest']);
    });
  });
}
