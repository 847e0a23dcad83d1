// The shared nesting check: at and one past the limit, objects and arrays alike, and depths that would overflow a
// recursive walk.
import t from 'tap';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../src/platform/validation/json-depth.ts';

const arrays = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);
const objects = (levels: number): unknown => JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);

t.test('scalars and shallow values are within any limit', async (t) => {
  for (const v of [null, 1, 'x', true, {}, [], { a: [1, { b: 'c' }] }]) t.notOk(exceedsJsonDepth(v), JSON.stringify(v));
});

t.test('the limit: at it accepted, one past refused', async (t) => {
  t.notOk(exceedsJsonDepth(arrays(MAX_JSON_DEPTH)), `${MAX_JSON_DEPTH} nested arrays`);
  t.ok(exceedsJsonDepth(arrays(MAX_JSON_DEPTH + 1)), `${MAX_JSON_DEPTH + 1} nested arrays`);
  t.notOk(exceedsJsonDepth(objects(MAX_JSON_DEPTH)), `${MAX_JSON_DEPTH} nested objects`);
  t.ok(exceedsJsonDepth(objects(MAX_JSON_DEPTH + 1)), `${MAX_JSON_DEPTH + 1} nested objects`);
  t.ok(
    exceedsJsonDepth({ wide: Array.from({ length: 1000 }, () => 1), deep: [arrays(MAX_JSON_DEPTH - 1)] }),
    'a deep branch beside a wide one',
  );
  t.notOk(exceedsJsonDepth(arrays(3), 3));
  t.ok(exceedsJsonDepth(arrays(4), 3), 'a limit of its own');
});

t.test('a million levels: no stack overflow', async (t) => {
  t.ok(exceedsJsonDepth(arrays(1_000_000)));
  t.ok(exceedsJsonDepth(objects(1_000_000)));
});
