// The public API under {base_url}/api/public (Langfuse-compatible, docs/public-api.md): its own validator, error
// envelope, not-found answer and storable-text check, encapsulated in this scope; each route declares its key class
// (route-access.ts).
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../context.ts';
import { registerGatewayKeys } from './routes/gateway-keys.ts';
import { registerPublicAnnotationQueueItems } from './routes/annotation-queue-items.ts';
import { registerPublicAnnotationQueues } from './routes/annotation-queues.ts';
import { registerPublicDatasetItems } from './routes/dataset-items.ts';
import { registerPublicDatasetRuns } from './routes/dataset-runs.ts';
import { registerPublicDatasets } from './routes/datasets.ts';
import { registerPublicIngestion } from './routes/ingestion.ts';
import { registerPublicMemberships } from './routes/memberships.ts';
import { registerPublicLlmConnections } from './routes/llm-connections.ts';
import { registerPublicModels } from './routes/models.ts';
import { registerPublicObservations } from './routes/observations.ts';
import { registerPublicObservationsV2 } from './routes/observations-v2.ts';
import { registerPublicOrganization } from './routes/organization.ts';
import { registerPublicOtel } from './routes/otel.ts';
import { registerPublicProjects } from './routes/projects.ts';
import { registerPublicPrompts } from './routes/prompts.ts';
import { registerPublicScoreConfigs } from './routes/score-configs.ts';
import { registerPublicScores } from './routes/scores.ts';
import { registerPublicScoresV3 } from './routes/scores-v3.ts';
import { registerPublicSessions } from './routes/sessions.ts';
import { registerPublicTraces } from './routes/traces.ts';
import { publicErrorHandler, publicNotFoundHandler } from './error-handler.ts';
import { refuseUnstorableInput } from './storable-text.ts';
import { publicValidatorCompiler } from './validation.ts';

export function registerPublicApi(app: FastifyInstance, ctx: AdminContext): void {
  app.setValidatorCompiler(publicValidatorCompiler);
  app.setErrorHandler(publicErrorHandler(ctx.log));
  app.setNotFoundHandler(publicNotFoundHandler(app));
  app.addHook('preHandler', refuseUnstorableInput);
  registerPublicProjects(app, ctx);
  registerPublicTraces(app, ctx);
  registerGatewayKeys(app, ctx);
  registerPublicPrompts(app, ctx);
  registerPublicIngestion(app, ctx);
  registerPublicOtel(app, ctx);
  registerPublicScores(app, ctx);
  registerPublicScoresV3(app, ctx);
  registerPublicScoreConfigs(app, ctx);
  registerPublicDatasets(app, ctx);
  registerPublicDatasetItems(app, ctx);
  registerPublicDatasetRuns(app, ctx);
  registerPublicObservations(app, ctx);
  registerPublicObservationsV2(app, ctx);
  registerPublicSessions(app, ctx);
  registerPublicOrganization(app, ctx);
  registerPublicMemberships(app, ctx);
  registerPublicModels(app, ctx);
  registerPublicLlmConnections(app, ctx);
  registerPublicAnnotationQueues(app, ctx);
  registerPublicAnnotationQueueItems(app, ctx);
}
