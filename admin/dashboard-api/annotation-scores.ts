// Scores made in the dashboard (on a trace page or in an annotation queue): checked by the rules the public API's
// POST /scores applies (shape, value against data type and score config, one target), then stored as ANNOTATION
// scores with the signed-in user as author. A score without a config is kept too: the API's rule that an
// ANNOTATION names a config is for clients, while a reviewer may give a free name and value.
import type { FastifyRequest } from 'fastify';
import type { ScoreRow } from '../../src/platform/store/repos/scores.ts';
import type { AdminContext } from '../context.ts';
import { scoreRowsOf } from '../public-api/routes/scores.ts';
import { invalidIssues } from './dashboard-error.ts';
import { dashboardUserOf } from './session-guard.ts';

/** What the dashboard sends for one score: a config's id, or a free name, and the value. */
export interface AnnotationInput {
  configId?: string;
  name: string;
  value: number | string;
  comment?: string;
}

/** Where the scores go: a trace (or one of its observations) or a session, and the queue they were made in. */
export interface AnnotationTarget {
  traceId?: string;
  observationId?: string;
  sessionId?: string;
  queueId?: string;
}

export const ANNOTATION_INPUT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'value'],
  properties: {
    configId: { type: 'string', minLength: 1 },
    name: { type: 'string', minLength: 1, maxLength: 1000 },
    value: { anyOf: [{ type: 'number' }, { type: 'string', minLength: 1 }] },
    comment: { type: 'string', maxLength: 5000 },
  },
} as const;

/** The rows to store, or 400 naming every problem of every score (by its index when there are several). */
export async function annotationRows(
  ctx: AdminContext,
  req: FastifyRequest,
  projectId: string,
  inputs: readonly AnnotationInput[],
  target: AnnotationTarget,
): Promise<ScoreRow[]> {
  const checked = await scoreRowsOf(
    ctx,
    projectId,
    inputs.map((input) => ({ ...input, ...target })),
  );
  const issues = checked.flatMap((c, i) =>
    'issues' in c ? c.issues.map((e) => ({ ...e, path: inputs.length > 1 ? [i, ...e.path] : e.path })) : [],
  );
  if (issues.length > 0) throw invalidIssues(issues);
  const author = dashboardUserOf(req).id;
  return checked.flatMap((c) =>
    'row' in c ? [{ ...c.row, source: 'ANNOTATION' as const, authorUserId: author }] : [],
  );
}
