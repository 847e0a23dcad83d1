// POST {base_url}/api/public/ingestion: Langfuse's batch ingestion (docs/public-api.md "POST /api/public/ingestion").
// Every well-formed batch answers 207 `{ successes, errors }`, one entry per event (sdk-log events in neither); the
// events land in the same traces and observations tables as the REST API and the gateway (source `ingestion`), and
// scores in the scores table.
import type { FastifyInstance } from 'fastify';
import { processBatch } from '../../../src/observability/ingestion/process-batch.ts';
import type { AdminContext } from '../../context.ts';
import { invalidRequestData } from '../public-error.ts';
import { INTAKE_BODY_LIMIT } from '../intake-limits.ts';
import { CHECKS_ITS_OWN_BODY } from '../storable-text.ts';
import { projectOf, requireKey } from '../route-access.ts';

export function registerPublicIngestion(app: FastifyInstance, ctx: AdminContext): void {
  // Each event is checked on its own (process-batch.ts): one unstorable event is that event's 400 in the 207.
  app.post(
    '/ingestion',
    { bodyLimit: INTAKE_BODY_LIMIT, config: CHECKS_ITS_OWN_BODY, onRequest: requireKey(ctx, 'ingestion-write') },
    async (req, reply) => {
      const body = req.body as { batch?: unknown } | null;
      if (body === null || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(body.batch)) {
        throw invalidRequestData([
          {
            path: ['batch'],
            message: 'must be an array of events: send { "batch": [ { "id", "type", "timestamp", "body" } ] }',
          },
        ]);
      }
      const result = await processBatch(ctx.db, projectOf(req).id, body.batch, ctx.log);
      return reply.code(207).send(result);
    },
  );
}
