// Serves the built dashboard (dist/dashboard/, `npm run build`) under /dashboard/: index.html for every app route,
// never cached, and the content-hashed files under /dashboard/assets/ cached for a year. /dashboard/api/* stays the
// data routes' (their not-found answer for paths they do not have).
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dashboardNotFoundHandler } from './dashboard-api/error-handler.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

// The page loads only its own script and styles and talks only to its own origin.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** dist/dashboard under the package root, found from this module both as source (admin/) and built (dist/admin/). */
export function defaultDashboardDir(): string {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'dashboard');
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc dashboard: not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>The dashboard is not built</h1>
<p>This svc has no dashboard build output (<code>dist/dashboard/</code>). Run <code>npm run build</code> in the
svc directory, then reload this page.</p>
</body></html>
`;

export function registerDashboardStatic(app: FastifyInstance, dir: string = defaultDashboardDir()): void {
  const root = resolve(dir);
  const assets = join(root, 'assets');

  async function sendIndex(reply: FastifyReply) {
    let html: Buffer;
    try {
      html = await readFile(join(root, 'index.html'));
    } catch {
      return reply
        .code(503)
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('retry-after', '60')
        .send(NOT_BUILT);
    }
    return reply
      .header('content-type', CONTENT_TYPES['.html'])
      .header('cache-control', 'no-cache')
      .headers(PAGE_HEADERS)
      .send(html);
  }

  async function sendAsset(segments: string[], reply: FastifyReply) {
    // Decoded segments: no parent or current-directory steps, no separators or NULs smuggled inside one.
    if (segments.length === 0 || segments.some((s) => s === '' || s === '.' || s === '..' || /[\\/\0]/.test(s)))
      return notFound(reply);
    const file = join(assets, ...segments);
    if (!file.startsWith(assets + sep)) return notFound(reply);
    try {
      if (!(await stat(file)).isFile()) return notFound(reply);
      const body = await readFile(file);
      return reply
        .header('content-type', CONTENT_TYPES[extname(file)] ?? 'application/octet-stream')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(body);
    } catch {
      return notFound(reply);
    }
  }

  app.get('/dashboard', (_req, reply) => sendIndex(reply));
  app.get('/dashboard/*', (req: FastifyRequest, reply) => {
    const path = req.url.split('?', 1)[0]!.slice('/dashboard/'.length);
    if (path === 'api' || path.startsWith('api/')) return dashboardNotFoundHandler(req, reply);
    if (!path.startsWith('assets/')) return sendIndex(reply);
    let segments: string[];
    try {
      segments = path.slice('assets/'.length).split('/').map(decodeURIComponent);
    } catch {
      return notFound(reply);
    }
    return sendAsset(segments, reply);
  });
}

function notFound(reply: FastifyReply) {
  return reply
    .code(404)
    .header('content-type', 'text/plain; charset=utf-8')
    .header('cache-control', 'no-store')
    .send('Not found\n');
}
