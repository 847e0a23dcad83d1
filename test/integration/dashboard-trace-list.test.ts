// The dashboard's trace list route (GET /dashboard/api/projects/:project/traces, docs/dashboard.md) on both store
// backends, over five traces sent through the ingestion API: the input and output previews (the last user message
// and the answer, cut server-side); each filter (name, user, session, tags, level, latency and cost bounds); the
// orders by time, latency and cost either way; paging by cursor forwards and back with every trace seen once, for
// each order; and 400 for a bad order, level, bound or cursor.
import t from 'tap';
import { signIn } from '../helpers/dashboard.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';
import { ascendingBy, LISTED, LONG_QUESTION, newestFirst, seedListedTraces } from '../helpers/trace-list-seed.ts';
import { waitFor } from '../helpers/wait-for.ts';

const P = '/projects/default/traces';
const PREVIEW_CHARS = 240;

for (const backend of STORE_BACKENDS) {
  t.test(`the trace list on ${backend}`, async (t) => {
    const s = await startTestService(t, baseConfig(), { backend });
    await seedListedTraces(s);
    const owner = await signIn(s, 'owner@localhost', s.service.firstOwner!.password);
    const list = async (query: string) => {
      const r = await owner.call('GET', `${P}?${query}`);
      t.equal(r.status, 200, query);
      return r.body as { data: any[]; pagination: any };
    };
    const ids = async (query: string) => (await list(query)).data.map((x) => x.id);
    await waitFor('the five traces', async () => (await list('')).data.length === 5);

    t.test('previews: the last user message and the answer, on one line, cut', async (t) => {
      const { data } = await list('');
      const byId = new Map(data.map((x) => [x.id, x]));
      for (const x of LISTED) {
        const row = byId.get(x.id);
        t.equal(row.outputPreview, x.answer, `${x.id}: the answer`);
        if (x.question !== LONG_QUESTION) t.equal(row.inputPreview, x.question, `${x.id}: the user's question`);
      }
      const long = byId.get('tl-summarize-1');
      t.equal(long.inputPreview.length, PREVIEW_CHARS, 'a long question is cut');
      t.ok(long.inputPreview.endsWith('…'), 'the cut is marked');
      t.ok(LONG_QUESTION.replace(/\s+/g, ' ').startsWith(long.inputPreview.slice(0, -1)), 'from its start');
      t.notOk('input' in long, 'the full input stays out of the list');
    });

    t.test('filters', async (t) => {
      t.same(await ids(''), newestFirst(), 'newest first by default');
      t.same(
        await ids('name=checkout'),
        newestFirst((x) => x.name === 'checkout'),
        'name',
      );
      t.same(
        await ids('q=SEAR'),
        newestFirst((x) => x.name === 'search'),
        'name contains',
      );
      t.same(
        await ids('userId=alice'),
        newestFirst((x) => x.userId === 'alice'),
        'user',
      );
      t.same(
        await ids('sessionId=sess-1'),
        newestFirst((x) => x.sessionId === 'sess-1'),
        'session',
      );
      t.same(
        await ids('tags=prod,team:a'),
        newestFirst((x) => x.tags.includes('prod') && x.tags.includes('team:a')),
      );
      t.same(await ids('tags=team:b'), ['tl-checkout-2'], 'one tag');
      t.same(await ids('tags=%20prod,%20team:a'), await ids('tags=prod,team:a'), 'spaces around tags dropped');
      t.same(await ids('tag=prod&tags=team:a'), await ids('tags=prod,team:a'), 'tag and tags together');
      t.same(await ids('level=ERROR'), ['tl-checkout-2'], 'ERROR: the trace with an ERROR observation');
      t.same(await ids('level=WARNING'), ['tl-checkout-2', 'tl-search-1'], 'WARNING: warnings and errors');
      t.same(
        await ids('minLatencyMs=500&maxLatencyMs=3000'),
        newestFirst((x) => x.latencyMs >= 500 && x.latencyMs <= 3000),
        'latency bounds, inclusive',
      );
      t.same(
        await ids('minCost=0.25'),
        newestFirst((x) => x.cost >= 0.25),
        'minimum cost',
      );
      t.same(
        await ids('maxCost=0.125'),
        newestFirst((x) => x.cost <= 0.125),
        'maximum cost',
      );
      t.same(await ids('userId=bob&level=WARNING&maxCost=0.25'), ['tl-checkout-2'], 'filters combine');
      const ranked = await list('level=ERROR');
      t.same(ranked.pagination.rankedNewest, null, 'fewer traces than the ranking bound');
      t.same(ranked.pagination.total, 1);
    });

    t.test('orders', async (t) => {
      t.same(await ids('order=asc'), newestFirst().reverse(), 'oldest first');
      const byLatency = ascendingBy((x) => x.latencyMs);
      t.same(await ids('sort=latency&order=asc'), byLatency, 'fastest first');
      t.same(await ids('sort=latency'), [...byLatency].reverse(), 'slowest first');
      const byCost = ascendingBy((x) => x.cost);
      t.same(await ids('sort=cost&order=asc'), byCost, 'cheapest first');
      t.same(await ids('sort=cost'), [...byCost].reverse(), 'most expensive first');
      t.same(await ids('sort=cost&userId=alice'), ['tl-checkout-1', 'tl-search-2'], 'an order with a filter');
    });

    t.test('paging by cursor, forwards and back, in each order', async (t) => {
      for (const query of [
        '',
        'order=asc',
        'sort=latency',
        'sort=latency&order=asc',
        'sort=cost',
        'sort=cost&order=asc',
      ]) {
        const whole = await ids(query);
        const pages: string[][] = [];
        let page = await list(`${query}&limit=2`);
        t.equal(page.pagination.previous, null, `${query}: no page before the first`);
        pages.push(page.data.map((x) => x.id));
        while (page.pagination.next) {
          page = await list(`${query}&limit=2&after=${page.pagination.next}`);
          pages.push(page.data.map((x) => x.id));
        }
        t.same(pages.flat(), whole, `${query}: every trace once, in order, forwards`);
        t.same(
          pages.map((p) => p.length),
          [2, 2, 1],
        );
        const back: string[][] = [page.data.map((x) => x.id)];
        while (page.pagination.previous) {
          page = await list(`${query}&limit=2&before=${page.pagination.previous}`);
          back.unshift(page.data.map((x) => x.id));
        }
        t.same(back, pages, `${query}: the same pages, backwards`);
      }
      const skipped = await list('limit=2&offset=2');
      t.same(
        skipped.data.map((x) => x.id),
        newestFirst().slice(2, 4),
        'an offset without a cursor skips rows',
      );
      t.ok(skipped.pagination.previous, 'and has a page before');
    });

    t.test('bad requests', async (t) => {
      for (const query of ['sort=tokens', 'order=up', 'level=INFO', 'minCost=-1', 'maxLatencyMs=x', 'after=nonsense'])
        t.match(await owner.call('GET', `${P}?${query}`), {
          status: 400,
          body: { error: { code: 'invalid_request' } },
        });
    });
  });
}
