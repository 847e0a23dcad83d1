// An independent AWS SigV4 verifier written from the SigV4 specification with node:crypto — deliberately not
// using @smithy/signature-v4 — so the fake Bedrock checks our signer rather than agreeing with itself. It is
// itself checked against AWS's published test-suite vectors (test/unit/bedrock-sigv4.test.ts).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface RawSignedRequest {
  method: string;
  /** The request target exactly as on the wire, path and query (`/model/x%3A0/converse?a=b`). */
  target: string;
  /** Header values in arrival order per lower-case name (node's `rawHeaders` folded). */
  headers: Record<string, string[]>;
  body: string | Buffer;
}

export interface SigV4Check {
  ok: boolean;
  reason?: string;
  accessKeyId?: string;
  region?: string;
  service?: string;
  signedHeaders?: string[];
  canonicalRequest?: string;
  stringToSign?: string;
  expectedSignature?: string;
}

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding as SigV4 defines it: every byte but A-Z a-z 0-9 - _ . ~ becomes %XX (upper case). */
export function uriEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Canonical URI for every service but S3: the path is normalised (empty, `.` and `..` segments) and each
 * segment of the path *as sent* is URI-encoded again, so a wire `%3A` becomes `%253A`.
 */
export function canonicalUri(rawPath: string): string {
  const segments: string[] = [];
  for (const s of rawPath.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(s);
  }
  const trailing = rawPath.length > 1 && rawPath.endsWith('/') && segments.length > 0 ? '/' : '';
  return `/${segments.map(uriEncode).join('/')}${trailing}`;
}

function decode(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, '%20'));
  } catch {
    return component;
  }
}

export function canonicalQuery(rawQuery: string): string {
  if (rawQuery === '') return '';
  const pairs = rawQuery
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      const [k, v] = eq < 0 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)];
      return [uriEncode(decode(k)), uriEncode(decode(v))] as const;
    });
  pairs.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

const trimAll = (v: string) => v.trim().replace(/\s+/g, ' ');

export function canonicalRequest(req: RawSignedRequest, signedHeaders: string[], payloadHash: string): string {
  const q = req.target.indexOf('?');
  const path = q < 0 ? req.target : req.target.slice(0, q);
  const query = q < 0 ? '' : req.target.slice(q + 1);
  const headerLines = signedHeaders
    .map((name) => `${name}:${(req.headers[name] ?? []).map(trimAll).join(',')}\n`)
    .join('');
  return [
    req.method,
    canonicalUri(path),
    canonicalQuery(query),
    headerLines,
    signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
}

export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/** Recomputes the signature of `req` from its Authorization header; `secretFor` maps access key ids to secrets. */
export function verifySigV4(req: RawSignedRequest, secretFor: (accessKeyId: string) => string | undefined): SigV4Check {
  const authorization = req.headers.authorization?.[0];
  const m = authorization ? AUTH.exec(authorization) : null;
  if (!m) return { ok: false, reason: 'Authorization header is not AWS4-HMAC-SHA256' };
  const [, accessKeyId, date, region, service, signed, signature] = m;
  const signedHeaders = signed.split(';');
  const base = { accessKeyId, region, service, signedHeaders };
  const secret = secretFor(accessKeyId);
  if (secret === undefined) return { ...base, ok: false, reason: `unknown access key ${accessKeyId}` };
  if (!signedHeaders.includes('host')) return { ...base, ok: false, reason: 'host is not signed' };
  for (const h of Object.keys(req.headers)) {
    if (h.startsWith('x-amz-') && !signedHeaders.includes(h))
      return { ...base, ok: false, reason: `${h} is not signed` };
  }
  const amzDate = req.headers['x-amz-date']?.[0] ?? '';
  if (!amzDate.startsWith(date)) return { ...base, ok: false, reason: 'credential scope date differs from x-amz-date' };
  const bodyHash = sha256Hex(req.body);
  const declared = req.headers['x-amz-content-sha256']?.[0];
  if (declared !== undefined && declared !== bodyHash)
    return { ...base, ok: false, reason: 'x-amz-content-sha256 does not match the body' };
  const canonical = canonicalRequest(req, signedHeaders, bodyHash);
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    `${date}/${region}/${service}/aws4_request`,
    sha256Hex(canonical),
  ].join('\n');
  const expectedSignature = createHmac('sha256', signingKey(secret, date, region, service))
    .update(stringToSign, 'utf8')
    .digest('hex');
  const ok = timingSafeEqual(Buffer.from(expectedSignature), Buffer.from(signature));
  return {
    ...base,
    ok,
    canonicalRequest: canonical,
    stringToSign,
    expectedSignature,
    ...(ok ? {} : { reason: 'signature mismatch' }),
  };
}

/** node's `rawHeaders` ([name, value, name, value, …]) folded into lower-case name → values in order. */
export function foldRawHeaders(raw: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i < raw.length; i += 2) (out[raw[i].toLowerCase()] ??= []).push(raw[i + 1]);
  return out;
}
