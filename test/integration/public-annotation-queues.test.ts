// Annotation queues (docs/public-api.md "Models and cost, LLM connections, annotation queues"): queues, items with
// their status and completedAt, user assignments, paging, 404s under an unknown queue, key kinds. Both backends.
import t from 'tap';
import { ACCESS_MESSAGES } from '../../admin/public-api/route-access.ts';
import { basicAuth as auth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';
import type { TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const call = (s: TestService, method: string, path: string, authorization: string, body?: unknown) =>
  callAdmin(s, method, `/api/public${path}`, authorization, body);

for (const backend of STORE_BACKENDS) {
  t.test(`annotation queues on ${backend}`, async (t) => {
    const { s, db, key, ingestKey, orgKey } = await startPublicApiService(t, backend);
    const k = auth(key);
    const api = (method: string, path: string, body?: unknown) => call(s, method, path, k, body);

    t.test('key kinds: organization key 401, ingestion-only project 403', async (t) => {
      const routes: [string, string, unknown?][] = [
        ['GET', '/annotation-queues'],
        ['POST', '/annotation-queues', { name: 'x' }],
        ['GET', '/annotation-queues/q'],
        ['GET', '/annotation-queues/q/items'],
        ['POST', '/annotation-queues/q/items', { objectId: 'o', objectType: 'TRACE' }],
        ['GET', '/annotation-queues/q/items/i'],
        ['PATCH', '/annotation-queues/q/items/i', {}],
        ['DELETE', '/annotation-queues/q/items/i'],
        ['POST', '/annotation-queues/q/assignments', { userId: 'u' }],
        ['DELETE', '/annotation-queues/q/assignments', { userId: 'u' }],
      ];
      for (const [method, path, body] of routes) {
        t.same(
          await call(s, method, path, auth(orgKey), body),
          { status: 401, body: { message: ACCESS_MESSAGES.organizationKey, error: 'UnauthorizedError' } },
          `${method} ${path}`,
        );
        t.equal((await call(s, method, path, auth(ingestKey), body)).status, 403, `${method} ${path}`);
      }
    });

    let queueId = '';
    t.test('queues: create, conflict on a taken name, read, list with paging', async (t) => {
      const created = await api('POST', '/annotation-queues', {
        name: 'review',
        description: 'Check answers',
        scoreConfigIds: ['cfg-1', 'cfg-2'],
      });
      t.equal(created.status, 200);
      t.match(created.body, { name: 'review', description: 'Check answers', scoreConfigIds: ['cfg-1', 'cfg-2'] });
      t.same(Object.keys(created.body).sort(), [
        'createdAt',
        'description',
        'id',
        'name',
        'scoreConfigIds',
        'updatedAt',
      ]);
      queueId = created.body.id;
      const second = await api('POST', '/annotation-queues', { name: 'second' });
      t.match(second.body, { name: 'second', description: null, scoreConfigIds: [] });
      const taken = await api('POST', '/annotation-queues', { name: 'review' });
      t.match(taken, { status: 409, body: { error: 'ConflictError' } });
      t.match(await api('POST', '/annotation-queues', { description: 'no name' }), { status: 400 });
      t.same((await api('GET', `/annotation-queues/${queueId}`)).body, created.body);
      t.match(await api('GET', '/annotation-queues/unknown'), { status: 404, body: { error: 'NotFoundError' } });
      const page = await api('GET', '/annotation-queues?limit=1&page=2');
      t.same(
        page.body.data.map((q: any) => q.name),
        ['second'],
      );
      t.same(page.body.meta, { page: 2, limit: 1, totalItems: 2, totalPages: 2 });
    });

    t.test('items: create, filter by status, complete, reopen, delete', async (t) => {
      const items = `/annotation-queues/${queueId}/items`;
      const a = await api('POST', items, { objectId: 'tr-1', objectType: 'TRACE' });
      t.equal(a.status, 200);
      t.match(a.body, { queueId, objectId: 'tr-1', objectType: 'TRACE', status: 'PENDING', completedAt: null });
      t.same(Object.keys(a.body).sort(), [
        'completedAt',
        'createdAt',
        'id',
        'objectId',
        'objectType',
        'queueId',
        'status',
        'updatedAt',
      ]);
      const b = await api('POST', items, { objectId: 'obs-1', objectType: 'OBSERVATION', status: 'COMPLETED' });
      t.match(b.body, { status: 'COMPLETED', completedAt: String });
      t.equal((await api('POST', items, { objectId: 'x', objectType: 'DATASET' })).status, 400);
      t.equal(
        (await api('POST', '/annotation-queues/unknown/items', { objectId: 'x', objectType: 'TRACE' })).status,
        404,
      );

      t.same(
        (await api('GET', items)).body.data.map((i: any) => i.id),
        [a.body.id, b.body.id],
      );
      t.same(
        (await api('GET', `${items}?status=COMPLETED`)).body.data.map((i: any) => i.id),
        [b.body.id],
      );
      t.equal((await api('GET', `${items}?status=DONE`)).status, 400);
      t.equal((await api('GET', '/annotation-queues/unknown/items')).status, 404);

      const done = await api('PATCH', `${items}/${a.body.id}`, { status: 'COMPLETED' });
      t.match(done.body, { id: a.body.id, status: 'COMPLETED', completedAt: String });
      const unchanged = await api('PATCH', `${items}/${a.body.id}`, {});
      t.equal(unchanged.body.completedAt, done.body.completedAt, 'an empty change keeps completedAt');
      t.equal((await api('PATCH', `${items}/${a.body.id}`)).status, 400, 'no body');
      t.match((await api('PATCH', `${items}/${a.body.id}`, { status: 'PENDING' })).body, {
        status: 'PENDING',
        completedAt: null,
      });
      t.same((await api('GET', `${items}/${b.body.id}`)).body, b.body);

      t.same((await api('DELETE', `${items}/${a.body.id}`)).body, {
        success: true,
        message: 'Annotation queue item deleted',
      });
      t.equal((await api('GET', `${items}/${a.body.id}`)).status, 404);
      t.equal((await api('DELETE', `${items}/${a.body.id}`)).status, 404);
      t.equal((await api('PATCH', `${items}/${a.body.id}`, { status: 'COMPLETED' })).status, 404);
    });

    t.test('assignments: add (idempotent), remove; user ids are not checked', async (t) => {
      const path = `/annotation-queues/${queueId}/assignments`;
      const added = await api('POST', path, { userId: 'user-1' });
      t.same(added, { status: 200, body: { userId: 'user-1', queueId, projectId: 'default' } });
      t.equal((await api('POST', path, { userId: 'user-1' })).status, 200);
      await api('POST', path, { userId: 'user-2' });
      const assigned = async () =>
        (
          await db.query<{ user_id: string }>(
            'SELECT user_id FROM annotation_queue_assignments WHERE queue_id = $1 ORDER BY user_id',
            [queueId],
          )
        ).rows.map((r) => r.user_id);
      t.same(await assigned(), ['user-1', 'user-2']);
      t.same((await api('DELETE', path, { userId: 'user-1' })).body, { success: true });
      t.same(await assigned(), ['user-2']);
      t.equal((await api('POST', path, {})).status, 400);
      t.equal((await api('POST', '/annotation-queues/unknown/assignments', { userId: 'u' })).status, 404);
    });
  });
}
