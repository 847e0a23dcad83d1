// Langfuse's web paths (/project/{projectId}/traces/{id}, …), which the Langfuse SDKs print and the public API's
// `htmlPath` carries, answered with a 302 into the dashboard's page for the same thing. The dashboard routes in its
// URL fragment (`/dashboard/#/p/{project}/traces/{id}`), so the target is built here and the browser follows it.
// Datasets have no dashboard page.
// The `langfuse` JS SDK v3 prints `/trace/{id}` without a project: the store says which project holds that trace.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { RestApiError } from './rest-api/rest-error.ts';
import type { Queryable } from '../src/platform/store/database.ts';

const seg = encodeURIComponent;

/** The dashboard address of a project's page, with an optional query for the page's filters. */
export function dashboardHref(project: string, page: string, query: Record<string, string> = {}): string {
  const q = new URLSearchParams(query).toString();
  return `/dashboard/#/p/${seg(project)}/${page}${q ? `?${q}` : ''}`;
}

const NO_DATASET_PAGE = (project: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc: no dataset page</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>The svc dashboard has no dataset page</h1>
<p>Datasets, their items and runs are kept and served by the public API (<code>GET /api/public/v2/datasets</code>,
<code>GET /api/public/datasets/{name}/runs</code>, with the project's key pair). The traces of a dataset run are in the
<a href="${dashboardHref(project, 'traces')}">dashboard's traces</a>.</p>
</body></html>
`;

/** Langfuse's list pages of a project (`/project/{projectId}/…`, each with item pages `…/{id}`) and the dashboard's. */
const LIST_PAGES: [langfuse: string, dashboard: string][] = [
  ['traces', 'traces'],
  ['sessions', 'sessions'],
  ['users', 'end-users'],
  ['prompts', 'prompts'],
];

type ProjectParams = { projectId: string };
type ItemParams = ProjectParams & { id: string };

/** The projects holding a trace with this id (at most two: one is an answer, two are ambiguous). */
async function projectsOfTrace(db: Queryable, id: string): Promise<string[]> {
  const { rows } = await db.query<{ project_id: string }>(
    'SELECT project_id FROM traces WHERE project_id IN (SELECT id FROM projects) AND id = $1 LIMIT 2',
    [id],
  );
  return rows.map((r) => r.project_id);
}

export function registerLangfuseLinks(app: FastifyInstance, db: Queryable): void {
  const to = (reply: FastifyReply, location: string) => reply.redirect(location, 302);

  app.get<{ Params: { id: string } }>('/trace/:id', async (req, reply) => {
    const projects = await projectsOfTrace(db, req.params.id);
    if (projects.length === 1) return to(reply, dashboardHref(projects[0]!, `traces/${seg(req.params.id)}`));
    const err = new RestApiError(
      'not_found',
      projects.length === 0
        ? `No trace ${req.params.id} in any project.`
        : `Trace id ${req.params.id} is in several projects; open /project/{projectId}/traces/${req.params.id}.`,
      { traceId: req.params.id },
    );
    return reply.code(err.status).send(err.body());
  });

  app.get<{ Params: ProjectParams }>('/project/:projectId', (req, reply) =>
    to(reply, dashboardHref(req.params.projectId, 'metrics')),
  );
  for (const [langfuse, page] of LIST_PAGES) {
    app.get<{ Params: ProjectParams }>(`/project/:projectId/${langfuse}`, (req, reply) =>
      to(reply, dashboardHref(req.params.projectId, page)),
    );
    app.get<{ Params: ItemParams }>(`/project/:projectId/${langfuse}/:id`, (req, reply) =>
      to(reply, dashboardHref(req.params.projectId, `${page}/${seg(req.params.id)}`)),
    );
  }
  const noDatasetPage = (req: { params: ProjectParams }, reply: FastifyReply) =>
    reply
      .code(404)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(NO_DATASET_PAGE(req.params.projectId));
  app.get<{ Params: ProjectParams }>('/project/:projectId/datasets', noDatasetPage);
  // A dataset, its items and runs (the JS SDK v5 prints `/datasets/{id}/runs/{runId}` after an experiment).
  app.get<{ Params: ProjectParams }>('/project/:projectId/datasets/*', noDatasetPage);
}
