// A fake Google Vertex AI: a real node:http server speaking Vertex (generateContent JSON, streamGenerateContent SSE
// with `\r\n\r\n` separators split across writes, Google error envelopes, Claude rawPredict/streamRawPredict) that
// checks the Bearer token, and a fake OAuth token endpoint that verifies the service-account JWT with the account's
// public key. Tests script what each model request gets.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';
import { sleep } from './wait-for.ts';

export const VERTEX_FIXTURES = new URL('../fixtures/vertex/', import.meta.url);

/** A fixture file of test/fixtures/vertex/, parsed. */
export function vertexFixture(name: string): any {
  return JSON.parse(readFileSync(new URL(name, VERTEX_FIXTURES), 'utf8'));
}

export interface RecordedVertexRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export type VertexBehaviour =
  | { type: 'json'; body: unknown; status?: number }
  /** A Google error envelope: the fixture `error-<status>.json` unless `body` is given. */
  | { type: 'error'; status: number; body?: unknown; headers?: Record<string, string> }
  | {
      type: 'sse';
      /** Each one a `data:` event (GenerateContentResponse, or an Anthropic event object with `type`). */
      events: unknown[];
      /** Gemini uses `\r\n\r\n`; Claude on Vertex `\n\n`. */
      separator?: string;
      /** Write an `event: <type>` line (Anthropic streams). */
      named?: boolean;
      /** Destroy the socket after this many events. */
      cutAfter?: number;
    };

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

export interface ServiceAccountKey {
  /** The service-account key file as Google issues it. */
  json: string;
  clientEmail: string;
  publicKey: KeyObject;
}

/** A fresh RSA key pair wrapped in a Google service-account key file. */
export function makeServiceAccount(tokenUri = 'https://oauth2.googleapis.com/token'): ServiceAccountKey {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = 'svc-gateway@test-project.iam.gserviceaccount.com';
  const json = JSON.stringify({
    type: 'service_account',
    project_id: 'test-project',
    private_key_id: 'f00dfeed0123456789abcdef0123456789abcdef',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    client_email: clientEmail,
    client_id: '112233445566778899000',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUri,
  });
  return { json, clientEmail, publicKey };
}

export interface FakeVertex {
  url: string;
  tokenUrl: string;
  account: ServiceAccountKey;
  requests: RecordedVertexRequest[];
  /** Valid token requests answered. */
  tokenFetches: number;
  /** Token requests refused (bad signature or claims), with the reason. */
  tokenRejections: string[];
  /** Model requests refused with 401 because of their Bearer token. */
  unauthorized: number;
  /** Behaviours used in order, one per model request; when empty, `fallback` answers. */
  queue: VertexBehaviour[];
  fallback: VertexBehaviour;
  /** The token endpoint's clock for checking `exp` (tests with a fake clock set it). */
  now: () => number;
  /** Tokens issued so far stop working (as if revoked): the next model request gets 401. */
  revokeTokens(): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(JSON.stringify(body));
}

async function writeSse(res: ServerResponse, b: Extract<VertexBehaviour, { type: 'sse' }>): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'transfer-encoding': 'chunked' });
  const sep = b.separator ?? '\r\n\r\n';
  const lineEnd = sep.slice(0, sep.length / 2);
  for (const [i, event] of b.events.entries()) {
    if (b.cutAfter !== undefined && i >= b.cutAfter) {
      res.socket?.destroy();
      return;
    }
    const name = b.named ? `event: ${(event as { type: string }).type}${lineEnd}` : '';
    const frame = `${name}data: ${JSON.stringify(event)}${sep}`;
    // Every frame split across two writes, the cut inside the separator when possible, so the decoder must reassemble.
    const cut = frame.length - Math.ceil(sep.length / 2);
    res.write(frame.slice(0, cut));
    await sleep(2);
    res.write(frame.slice(cut));
    await sleep(1);
  }
  res.end();
}

export async function startFakeVertex(fallback?: VertexBehaviour): Promise<FakeVertex> {
  let valid = new Set<string>();
  let issued = 0;
  const fake: FakeVertex = {
    url: '',
    tokenUrl: '',
    account: makeServiceAccount(),
    requests: [],
    tokenFetches: 0,
    tokenRejections: [],
    unauthorized: 0,
    now: () => Date.now(),
    queue: [],
    fallback: fallback ?? { type: 'json', body: vertexFixture('generate-text.json') },
    revokeTokens: () => {
      valid = new Set();
    },
    close: () => new Promise((r) => server.close(() => r())),
  };

  async function token(req: IncomingMessage, res: ServerResponse) {
    const form = new URLSearchParams(await readBody(req));
    const refuse = (why: string) => {
      fake.tokenRejections.push(why);
      sendJson(res, 400, { error: 'invalid_grant', error_description: why });
    };
    if (req.headers['content-type'] !== 'application/x-www-form-urlencoded') return refuse('content type');
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse('grant_type');
    try {
      const { payload, protectedHeader } = await jwtVerify(form.get('assertion') ?? '', fake.account.publicKey, {
        algorithms: ['RS256'],
        issuer: fake.account.clientEmail,
        subject: fake.account.clientEmail,
        audience: fake.tokenUrl,
        currentDate: new Date(fake.now()),
      });
      if (payload.scope !== SCOPE) return refuse(`scope ${String(payload.scope)}`);
      if (payload.exp! - payload.iat! !== 3600) return refuse('lifetime is not one hour');
      if (protectedHeader.kid !== JSON.parse(fake.account.json).private_key_id) return refuse('kid');
    } catch (err) {
      return refuse(`assertion: ${(err as Error).message}`);
    }
    fake.tokenFetches++;
    const accessToken = `ya29.fake-access-token-${++issued}`;
    valid.add(accessToken);
    sendJson(res, 200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
  }

  async function model(req: IncomingMessage, res: ServerResponse) {
    const text = await readBody(req);
    const auth = String(req.headers.authorization ?? '');
    if (!auth.startsWith('Bearer ') || !valid.has(auth.slice(7))) {
      fake.unauthorized++;
      return sendJson(res, 401, vertexFixture('error-401.json'));
    }
    fake.requests.push({ path: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : undefined });
    const b = fake.queue.shift() ?? fake.fallback;
    switch (b.type) {
      case 'json':
        return sendJson(res, b.status ?? 200, b.body);
      case 'error':
        return sendJson(res, b.status, b.body ?? vertexFixture(`error-${b.status}.json`), b.headers);
      case 'sse':
        return writeSse(res, b);
    }
  }

  const server: Server = createServer((req, res) => {
    const handle =
      req.url === '/token'
        ? token(req, res)
        : /:(generateContent|streamGenerateContent\?alt=sse|rawPredict|streamRawPredict)$/.test(req.url ?? '')
          ? model(req, res)
          : Promise.resolve(
              sendJson(res, 404, { error: { code: 404, message: `no route ${req.url}`, status: 'NOT_FOUND' } }),
            );
    handle.catch((err) => {
      if (!res.headersSent) sendJson(res, 500, { error: { code: 500, message: String(err), status: 'INTERNAL' } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.tokenUrl = `${fake.url}/token`;
  return fake;
}

/** A vertex deployment of `fake` (Gemini unless the model starts with `claude`). */
export function vertexDeployment(id: string, fake: FakeVertex, extra: Record<string, unknown> = {}) {
  return {
    id,
    provider: 'vertex',
    model: 'gemini-2.5-flash',
    base_url: fake.url,
    gcp: {
      project: 'test-project',
      location: 'us-central1',
      credentials_json: fake.account.json,
      token_url: fake.tokenUrl,
    },
    price: { input_per_mtok: 0.3, output_per_mtok: 2.5 },
    ...extra,
  };
}
