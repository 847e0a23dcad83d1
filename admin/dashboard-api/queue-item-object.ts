// What an annotation queue item points at, as the reviewer reads it (a trace's or observation's input and output, a
// session's turns), where its scores go, and the scores the queue already holds for it (to show and to change).
import type { Queryable } from '../../src/platform/store/database.ts';
import type { StoredQueueItem } from '../../src/platform/store/repos/annotation-queue-items.ts';
import { getObservation } from '../../src/platform/store/repos/observations.ts';
import { listScoresWithoutTotal } from '../../src/platform/store/repos/scores.ts';
import { getSession } from '../../src/platform/store/repos/sessions.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import type { AnnotationTarget } from './annotation-scores.ts';

/** Scores one item may hold: a handful, one a config. */
const ITEM_SCORES = 100;

/** A trace's or an observation's input and output, as the reviewer reads them. */
const ioView = (
  kind: 'trace' | 'observation',
  traceId: string,
  x: { name: string | null; input?: unknown; output?: unknown },
  time: string,
) => ({ kind, traceId, name: x.name, time, input: x.input ?? null, output: x.output ?? null });

/** What the item points at, as the reviewer reads it, and where its scores go; undefined when it is not stored. */
export async function itemObject(db: Queryable, projectId: string, item: StoredQueueItem) {
  if (item.objectType === 'TRACE') {
    const t = await getTrace(db, projectId, item.objectId);
    return t && { target: { traceId: t.id } as AnnotationTarget, view: ioView('trace', t.id, t, t.startTime) };
  }
  if (item.objectType === 'OBSERVATION') {
    const o = await getObservation(db, projectId, item.objectId);
    return (
      o && {
        target: { traceId: o.traceId, observationId: o.id } as AnnotationTarget,
        view: ioView('observation', o.traceId, o, o.startTime),
      }
    );
  }
  const s = await getSession(db, projectId, item.objectId);
  return (
    s && {
      target: { sessionId: s.id } as AnnotationTarget,
      view: {
        kind: 'session',
        sessionId: s.id,
        time: s.createdAt,
        turns: s.traces.map((t) => ({ traceId: t.id, name: t.name, input: t.input ?? null, output: t.output ?? null })),
      },
    }
  );
}

/** The scores the queue holds for the item's target (not those of its trace's observations, for a trace). */
export async function itemScores(db: Queryable, projectId: string, queueId: string, target: AnnotationTarget) {
  const scores = await listScoresWithoutTotal(db, projectId, {
    queueId,
    traceId: target.traceId,
    sessionId: target.sessionId,
    limit: ITEM_SCORES,
    offset: 0,
  });
  return scores
    .filter((s) => s.observationId === (target.observationId ?? null))
    .map((s) => ({
      id: s.id,
      configId: s.configId,
      name: s.name,
      value: s.value,
      stringValue: s.stringValue,
      comment: s.comment,
    }));
}
