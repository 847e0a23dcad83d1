// Requests Node's HTTP parser refuses before any handler sees them: headers past the 16 KB limit, a NUL, bare CR, bare
// LF or other control character in a header, a malformed request line, a request not received in time. Described
// here once, so the gateway and the admin port each answer them in their own documented envelope instead of Node's
// bare status line or Fastify's default body (docs/decisions.md "Requests the HTTP parser refuses").
import { nodeHttp } from '../../platform/node-http.ts';

/** What was wrong, as the code the gateway answers (the admin surfaces map it onto their own codes). */
export type ParseRefusalKind =
  'header_too_large' | 'invalid_header' | 'invalid_request' | 'request_too_large' | 'request_timeout';

export interface ParseRefusal {
  kind: ParseRefusalKind;
  status: 400 | 408 | 413 | 431;
  /** Says what was refused; never quotes a header value (it may be a credential). */
  message: string;
  /** The request target from the request line, when the bytes received start with a readable one. */
  path?: string;
  /** The method from that request line. */
  method?: string;
}

/** The error Node's `clientError` event carries: llhttp's code and reason, and the bytes it was parsing. */
export interface ClientError extends Error {
  code?: string;
  reason?: string;
  bytesParsed?: number;
  rawPacket?: Buffer;
}

// llhttp's codes for a header line it cannot read: a character not allowed in a name or value (NUL, other control
// characters), a CR not followed by LF, an LF not preceded by CR.
const HEADER_ERRORS = new Set(['HPE_INVALID_HEADER_TOKEN', 'HPE_CR_EXPECTED', 'HPE_LF_EXPECTED']);

const REQUEST_LINE = /^([A-Z]{1,20}) (\/[^ \r\n]{0,2048}) HTTP\/\d\.\d\r?\n/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/** The name of the header line that holds byte `at` of the packet, when it is a readable header name. */
function headerNameAt(packet: string, at: number): string | undefined {
  const start = packet.lastIndexOf('\n', at - 1) + 1;
  const colon = packet.indexOf(':', start);
  if (colon === -1 || colon >= at) return undefined;
  const name = packet.slice(start, colon);
  return TOKEN.test(name) ? name.toLowerCase() : undefined;
}

/** Refusals whose wording needs nothing from the request, by Node's error code. */
const FIXED: Record<string, Pick<ParseRefusal, 'kind' | 'status' | 'message'>> = {
  ERR_HTTP_REQUEST_TIMEOUT: { kind: 'request_timeout', status: 408, message: 'The request was not received in time.' },
  HPE_HEADER_OVERFLOW: {
    kind: 'header_too_large',
    status: 431,
    message: 'The request headers are larger than the 16 KB this server accepts.',
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    kind: 'request_too_large',
    status: 413,
    message: 'The chunk extensions of the request body are too large.',
  },
};

/** The refusal a parser error deserves, with the request line it belongs to when that can be read. */
export function describeParseRefusal(err: ClientError): ParseRefusal {
  const packet = err.rawPacket?.toString('latin1') ?? '';
  const line = REQUEST_LINE.exec(packet);
  const request = line ? { method: line[1], path: line[2] } : {};
  const fixed = err.code === undefined ? undefined : FIXED[err.code];
  if (fixed) return { ...fixed, ...request };
  const parserReason = err.reason ?? err.message;
  if (err.code !== undefined && HEADER_ERRORS.has(err.code)) {
    const name = err.bytesParsed === undefined ? undefined : headerNameAt(packet, err.bytesParsed);
    return {
      kind: 'invalid_header',
      status: 400,
      message: `${name ? `Header ${name}` : 'A header'} cannot be read (${parserReason}): header names and values may not hold NUL, a bare CR, a bare LF or other control characters.`,
      ...request,
    };
  }
  return {
    kind: 'invalid_request',
    status: 400,
    message: `The request cannot be read as HTTP/1.1 (${parserReason}).`,
    ...request,
  };
}

/** A whole HTTP/1.1 response with a JSON body, written straight to a socket the server has given up on. */
export function rawJsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): string {
  const text = JSON.stringify(body);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${status} ${nodeHttp.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${extra}connection: close\r\n\r\n${text}`;
}
