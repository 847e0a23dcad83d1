// The versioned REST API under {base_url}/v1 (docs/rest-api.md): its own validator, error envelope, not-found
// answer and request guard (request id, API key, rate limit), encapsulated in this scope.
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../context.ts';
import { registerAgents } from './routes/agents.ts';
import { registerSpans } from './routes/spans.ts';
import { registerTraces } from './routes/traces.ts';
import { restErrorHandler, restNotFoundHandler } from './error-handler.ts';
import { requestGuard } from './request-guard.ts';
import { refuseUnstorableText } from './storable-text.ts';
import { restValidatorCompiler } from './validation.ts';

export function registerRestApi(app: FastifyInstance, ctx: AdminContext): void {
  // Bodies are JSON (docs/rest-api.md "Request and response headers"); without this, Fastify would hand a text/plain
  // body to the routes as a string.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(restValidatorCompiler);
  app.setErrorHandler(restErrorHandler(ctx.log));
  // Before the not-found handler, so unknown paths are also authenticated, limited and given the headers.
  app.addHook('onRequest', requestGuard(ctx));
  app.addHook('preValidation', refuseUnstorableText);
  app.setNotFoundHandler(restNotFoundHandler);
  registerTraces(app, ctx);
  registerSpans(app, ctx);
  registerAgents(app, ctx);
}
