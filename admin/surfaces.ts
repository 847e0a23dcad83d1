// The admin listener's API and dashboard surfaces: REST under /v1, the Langfuse-compatible public API and SCIM under
// /api/public, the dashboard's API and its static files, and Langfuse's web paths sent on into the dashboard.
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from './context.ts';
import { registerDashboardApi } from './dashboard-api/register.ts';
import { registerDashboardStatic } from './dashboard-static.ts';
import { registerLangfuseLinks } from './langfuse-links.ts';
import { registerPublicApi } from './public-api/register.ts';
import { registerRestApi } from './rest-api/register.ts';
import { registerPublicScim } from './scim/scim-routes.ts';

export function registerAdminSurfaces(app: FastifyInstance, host: AdminContext): void {
  void app.register(
    (scope, _opts, done) => {
      registerRestApi(scope, host);
      done();
    },
    { prefix: '/v1' },
  );
  void app.register(
    (scope, _opts, done) => {
      registerPublicApi(scope, host);
      // SCIM shares the public API's prefix, key check and validator, and answers in its own envelope.
      registerPublicScim(scope, host);
      done();
    },
    { prefix: '/api/public' },
  );
  void app.register(
    (scope, _opts, done) => {
      registerDashboardApi(scope, host);
      done();
    },
    { prefix: '/dashboard/api' },
  );
  registerDashboardStatic(app);
  registerLangfuseLinks(app, host.db);
}
