// Scores, score configs and an annotation queue for the dashboard's scores pages, over alice's three chat turns
// (session-traces.ts): API scores of several names and types (one ten days old), an ANNOTATION score with a config,
// an EVAL score written to the store (the API refuses EVAL), and 55 bulk scores so the list has an older page.
import { upsertScores } from '../../src/platform/store/repos/scores.ts';
import { basicAuth, callAdmin, defaultProjectKey } from './public-api.ts';
import type { TestService } from './service.ts';
import { ALICE_TURNS, sendTurns } from './session-traces.ts';

export const BULK_SCORES = 55;
const DAY = 86_400_000;

/** Sends the turns and the scores; answers the project key's Authorization and the NUMERIC config `quality`. */
export async function seedScores(s: TestService) {
  const key = await defaultProjectKey(s);
  const auth = basicAuth(key);
  const now = Date.now();
  await sendTurns(
    s.adminUrl,
    key,
    now - 3_600_000,
    ALICE_TURNS.map((turn) => ({ turn, userId: 'alice', sessionId: 'conv' })),
  );
  const quality = await callAdmin(s, 'POST', '/api/public/score-configs', auth, {
    name: 'quality',
    dataType: 'NUMERIC',
    minValue: 0,
    maxValue: 5,
  });
  const [a1, a2] = ALICE_TURNS.map((x) => x.id);
  const at = (ago: number) => new Date(now - ago).toISOString();
  const scores = [
    { name: 'accuracy', value: 0.9, traceId: a1, comment: 'spot on', timestamp: at(60_000) },
    { name: 'accuracy', value: 0.3, traceId: a2, timestamp: at(120_000) },
    { name: 'tone', dataType: 'CATEGORICAL', value: 'friendly', traceId: a1, timestamp: at(180_000) },
    { name: 'accuracy', value: 0.7, traceId: a2, timestamp: at(10 * DAY) },
    { name: 'quality', configId: quality.body.id, source: 'ANNOTATION', value: 4, traceId: a1, timestamp: at(240_000) },
    ...Array.from({ length: BULK_SCORES }, (_, i) => ({
      name: 'bulk',
      value: i,
      traceId: a1,
      timestamp: at(3_600_000 + i * 1000),
    })),
  ];
  const created = await callAdmin(s, 'POST', '/api/public/scores', auth, scores);
  if (created.status !== 202) throw new Error(`scores answered ${created.status}: ${JSON.stringify(created.body)}`);
  await upsertScores(s.service.db, [
    {
      projectId: 'default',
      id: 'eval-1',
      traceId: a2,
      name: 'toxicity',
      dataType: 'NUMERIC',
      value: 0.05,
      stringValue: null,
      source: 'EVAL',
      environment: 'default',
      timestamp: at(300_000),
    },
  ]);
  return { auth, quality: quality.body as { id: string; name: string } };
}
