// The real svc service for the SDK tests: in process, on port 0, with a fresh store (test/helpers/service.ts), the
// gateway tracing every request, and a project key pair made in its store.
import { createApiKey } from '../../../src/platform/store/repos/api-keys.ts';
import { TEST_KEY, baseConfig, startTestService, type TestService } from '../../../test/helpers/service.ts';

export { TEST_KEY };

export interface SdkTestService {
  s: TestService;
  /** The SDK options for the project key pair: publicKey, secretKey, baseUrl (the admin listener). */
  options: { publicKey: string; secretKey: string; baseUrl: string };
  /** Basic auth of the key pair, for reading back through the public API. */
  authorization: string;
}

export async function startSdkTestService(t: { teardown(fn: () => unknown): void }): Promise<SdkTestService> {
  const s = await startTestService(
    t,
    baseConfig({ plugins: [{ use: 'auth' }, { use: 'router' }, { use: 'tracing', config: { record_content: true } }] }),
  );
  const key = await createApiKey(s.service.db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });
  return {
    s,
    options: { publicKey: key.publicKey, secretKey: key.secretKey, baseUrl: s.adminUrl },
    authorization: `Basic ${Buffer.from(`${key.publicKey}:${key.secretKey}`).toString('base64')}`,
  };
}

/** GET a public API path with the key pair; the parsed body, or undefined on 404. */
export async function readPublic(svc: SdkTestService, path: string): Promise<any> {
  const res = await fetch(`${svc.s.adminUrl}${path}`, { headers: { authorization: svc.authorization } });
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A request with the key pair and a JSON body; the status and parsed body. */
export async function sendPublic(
  svc: SdkTestService,
  method: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${svc.s.adminUrl}${path}`, {
    method,
    headers: { authorization: svc.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** A local URL where nothing listens: a port just freed. */
export async function deadUrl(): Promise<string> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
