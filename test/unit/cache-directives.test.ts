// Request cache directives (plugins/cache/cache-directives.ts): no-cache refreshes, no-store and bypass skip the cache.
import t from 'tap';
import { cacheDirectives } from '../../plugins/cache/cache-directives.ts';

t.test('each header maps to read and write permissions', async (t) => {
  const cases: [Record<string, string | string[]>, { read: boolean; write: boolean }][] = [
    [{}, { read: true, write: true }],
    [{ 'cache-control': 'no-cache' }, { read: false, write: true }],
    [{ 'cache-control': 'No-Cache' }, { read: false, write: true }],
    [{ 'cache-control': 'max-age=0' }, { read: false, write: true }],
    [{ 'cache-control': 'max-age = 0' }, { read: false, write: true }],
    [{ 'cache-control': 'max-age=60' }, { read: true, write: true }],
    [{ 'cache-control': 'no-store' }, { read: false, write: false }],
    [{ 'cache-control': 'max-age=10, no-store' }, { read: false, write: false }],
    [{ 'cache-control': ['no-cache', 'no-store'] }, { read: false, write: false }],
    [{ 'x-svc-cache': 'bypass' }, { read: false, write: false }],
    [{ 'x-svc-cache': 'BYPASS' }, { read: false, write: false }],
    [{ 'x-svc-cache': 'hit' }, { read: true, write: true }],
    [{ 'cache-control': 'no-cache-please' }, { read: true, write: true }],
  ];
  for (const [headers, expected] of cases) t.same(cacheDirectives(headers), expected, JSON.stringify(headers));
});
