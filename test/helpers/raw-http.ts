// Requests written byte for byte on a TCP connection, for what no HTTP client will send (a NUL, bare CR or bare LF in
// a header, 64 KB of headers): the answer as the server wrote it, parsed just enough to check status, headers, body.
import { connect } from 'node:net';

export interface RawAnswer {
  /** The status line's code; 0 when the server closed without answering. */
  status: number;
  statusLine: string;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  text: string;
  json: any;
}

/** Sends `request` to the server at `url` and reads until it closes the connection (or `timeoutMs` passes: throws). */
export async function rawRequest(url: string, request: string | Buffer, timeoutMs = 10_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const received = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    // A reset after the answer (the server closes with unread bytes) still leaves the answer read.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    socket.write(request);
  });
  const split = received.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = (split === -1 ? received : received.slice(0, split)).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  const text = split === -1 ? '' : received.slice(split + 4);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0), statusLine, headers, text, json };
}

/** An HTTP/1.1 request with these header lines written as given (no checks, no encoding), closing after the answer. */
export function rawHttp(method: string, path: string, headerLines: string[], body = ''): string {
  // The server closes after the answer, so the reader knows where it ends.
  const framing = [...(body === '' ? [] : [`content-length: ${Buffer.byteLength(body)}`]), 'connection: close'];
  return `${method} ${path} HTTP/1.1\r\nhost: svc\r\n${[...headerLines, ...framing].map((l) => `${l}\r\n`).join('')}\r\n${body}`;
}
