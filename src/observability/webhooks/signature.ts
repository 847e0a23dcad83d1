// The `x-svc-signature` header (docs/webhooks.md, The signature): `t=<unix seconds>,v1=<lowercase hex HMAC-SHA256>`.
// Receivers verify the HMAC of the raw request body only, so `t` is not part of the signed content: it says when
// the signature was made, for receivers that reject stale deliveries.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-svc-signature';

/** The hex HMAC-SHA256 of the raw body (the worker task runs this). */
export function hmacHex(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

export function signatureHeader(unixSeconds: number, hex: string): string {
  return `t=${unixSeconds},v1=${hex}`;
}

export function parseSignatureHeader(value: string): { t: number; v1: string[] } | undefined {
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (key === 't' && /^\d+$/.test(val)) t = Number(val);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(val)) v1.push(val);
  }
  return t === undefined || v1.length === 0 ? undefined : { t, v1 };
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'malformed' | 'stale' | 'mismatch' };

/** What docs/webhooks.md asks receivers to do: a matching v1 (constant time) and a `t` within the tolerance. */
export function verifySignature(
  secret: string,
  rawBody: string,
  header: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): VerifyResult {
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed' };
  if (Math.abs(nowSeconds - parsed.t) > toleranceSeconds) return { ok: false, reason: 'stale' };
  const expected = Buffer.from(hmacHex(secret, rawBody), 'hex');
  const match = parsed.v1.some((v) => timingSafeEqual(Buffer.from(v, 'hex'), expected));
  return match ? { ok: true } : { ok: false, reason: 'mismatch' };
}
