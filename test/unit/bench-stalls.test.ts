// bench/stalls.ts reads a CPU profile into long tasks (runs of main-thread samples without an idle one, at least the
// threshold long) and a sampled heap profile into allocation sites; here on small profiles built by hand.
import t from 'tap';
import { longTasks, promotedSites } from '../../bench/stalls.ts';

const cwd = process.cwd();
const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });

t.test(
  'long tasks: busy runs between idle samples, at least the threshold, longest first, with their entry',
  async (t) => {
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 3, 5] },
        { id: 2, callFrame: frame('(idle)') },
        { id: 3, callFrame: frame('flush', `file://${cwd}/src/gateway/tracing/trace-writer.ts`), children: [4] },
        { id: 4, callFrame: frame('stringify') },
        { id: 5, callFrame: frame('(garbage collector)') },
      ],
      // idle, then 3 ms in flush/stringify, idle, 0.5 ms of GC (under the threshold), idle, 2 ms of GC.
      samples: [2, 3, 4, 4, 2, 5, 2, 5, 5],
      timeDeltas: [100, 1000, 1000, 1000, 100, 500, 100, 1000, 1000],
    };
    const tasks = longTasks(profile, 1);
    t.same(
      tasks.map((x) => [x.ms, x.entry]),
      [
        [3, 'flush src/gateway/tracing/trace-writer.ts:1 ×3'],
        [2, '(no project code) ×2'],
      ],
    );
    t.same(tasks[0].hot, ['stringify (native) ×2', 'flush src/gateway/tracing/trace-writer.ts:1 ×1']);
  },
);

t.test('promoted sites: bytes per allocating frame, named with the nearest project frame above it', async (t) => {
  const head = {
    callFrame: frame('(root)'),
    selfSize: 0,
    children: [
      {
        callFrame: frame('createRequestContext', `file://${cwd}/src/gateway/pipeline/context.ts`),
        selfSize: 300,
        children: [{ callFrame: frame('Map'), selfSize: 500, children: [] }],
      },
      { callFrame: frame('Map'), selfSize: 100, children: [] },
    ],
  };
  t.same(promotedSites(head), [
    ['Map (native)  (in createRequestContext src/gateway/pipeline/context.ts:1)', 500],
    ['createRequestContext src/gateway/pipeline/context.ts:1', 300],
    ['Map (native)', 100],
  ]);
});
