// One request with node:http, so a test controls every header: no content-type unless given, and with `chunks` a
// chunked body without content-length.
import { request, type Agent, type IncomingHttpHeaders } from 'node:http';

export interface NodeReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
  /** The client's port: the same port, the same connection. */
  localPort: number | undefined;
}

export interface NodeRequestOptions {
  headers?: Record<string, string>;
  body?: string | Buffer;
  chunks?: Buffer[];
  /** The agent to send with (keep-alive); none by default: a fresh connection. */
  agent?: Agent;
}

/**
 * Sends one request and reads the whole answer. The answer counts even when the server closes the connection while
 * the body is still being written (a 413).
 */
export function nodeRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: NodeRequestOptions = {},
): Promise<NodeReply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let answered = false;
    const agent = options.agent ?? false;
    const req = request({ hostname, port, path, method, headers: options.headers ?? {}, agent }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, localPort: req.socket?.localPort });
      });
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (options.chunks) {
      for (const c of options.chunks) req.write(c);
      req.end();
    } else {
      req.end(options.body);
    }
  });
}
