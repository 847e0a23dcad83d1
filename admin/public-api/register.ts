// The public API under {base_url}/api/public (Langfuse-compatible, spec 4 A2 and 5): its own validator, error
// envelope, not-found answer and storable-text check, encapsulated in this scope; each route declares its key class
// (route-access.ts).
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../context.ts';
import { registerGatewayKeys } from '../routes/gateway-keys.ts';
import { registerPublicAnnotationQueues } from '../routes/public-annotation-queues.ts';
import { registerPublicDatasetItems } from '../routes/public-dataset-items.ts';
import { registerPublicDatasetRuns } from '../routes/public-dataset-runs.ts';
import { registerPublicDatasets } from '../routes/public-datasets.ts';
import { registerPublicIngestion } from '../routes/public-ingestion.ts';
import { registerPublicMemberships } from '../routes/public-memberships.ts';
import { registerPublicLlmConnections } from '../routes/public-llm-connections.ts';
import { registerPublicModels } from '../routes/public-models.ts';
import { registerPublicObservations } from '../routes/public-observations.ts';
import { registerPublicObservationsV2 } from '../routes/public-observations-v2.ts';
import { registerPublicOrganization } from '../routes/public-organization.ts';
import { registerPublicOtel } from '../routes/public-otel.ts';
import { registerPublicProjects } from '../routes/public-projects.ts';
import { registerPublicPrompts } from '../routes/public-prompts.ts';
import { registerPublicScim } from '../routes/public-scim.ts';
import { registerPublicScoreConfigs } from '../routes/public-score-configs.ts';
import { registerPublicScores } from '../routes/public-scores.ts';
import { registerPublicSessions } from '../routes/public-sessions.ts';
import { registerPublicTraces } from '../routes/public-traces.ts';
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
  registerPublicScoreConfigs(app, ctx);
  registerPublicDatasets(app, ctx);
  registerPublicDatasetItems(app, ctx);
  registerPublicDatasetRuns(app, ctx);
  registerPublicObservations(app, ctx);
  registerPublicObservationsV2(app, ctx);
  registerPublicSessions(app, ctx);
  registerPublicOrganization(app, ctx);
  registerPublicMemberships(app, ctx);
  registerPublicScim(app, ctx);
  registerPublicModels(app, ctx);
  registerPublicLlmConnections(app, ctx);
  registerPublicAnnotationQueues(app, ctx);
}
