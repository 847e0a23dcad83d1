// Caller context headers: svc-user-id, svc-session-id, svc-tags, svc-metadata, traceparent. Formats are documented in
// docs/api.md "Caller context headers". A malformed header never fails the request: it is left out of the trace and
// named under metadata `svc.ignored_headers`.
import type { IncomingHttpHeaders } from 'node:http';
import { exceedsJsonDepth } from '../../platform/validation/json-depth.ts';
import { isObject } from '../../platform/validation/json-object.ts';

export interface CallerContext {
  userId?: string;
  sessionId?: string;
  tags: Record<string, string>;
  metadata: Record<string, unknown>;
  parentTraceId?: string;
  parentSpanId?: string;
  ignored: string[];
}

const ID_MAX = 200;
const TAGS_MAX = 50;
const TAG_KEY_MAX = 100;
const TAG_VALUE_MAX = 200;
const METADATA_MAX_BYTES = 16_384;
// Version 00 has exactly four fields; a later version may append more after a dash (W3C Trace Context, "Versioning").
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  const text = Array.isArray(v) ? v[0] : v;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

function identifier(value: string | undefined): string | undefined | null {
  if (value === undefined) return undefined;
  return value.length <= ID_MAX && !/[\u0000-\u001f]/.test(value) ? value : null;
}

/**
 * A JSON object of strings, or a comma list of `key:value` and bare `tag` entries (a bare tag maps to ""): the
 * `key:value` that the public API lists and the dashboard and public API filters take. An entry with `=` and no `:`
 * (the `key=value` of other gateways) is refused as a whole rather than read as one odd bare tag.
 */
export function parseTags(value: string): Record<string, string> | null {
  let entries: [string, string][];
  if (value.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return null;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    entries = Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [
      k,
      typeof v === 'string' ? v : JSON.stringify(v),
    ]);
  } else {
    const parts = value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    if (parts.some((part) => part.includes('=') && !part.includes(':'))) return null;
    entries = parts.map((part) => {
      const colon = part.indexOf(':');
      return colon === -1 ? [part, ''] : [part.slice(0, colon).trim(), part.slice(colon + 1).trim()];
    });
  }
  if (entries.length > TAGS_MAX) return null;
  for (const [k, v] of entries) if (k === '' || k.length > TAG_KEY_MAX || v.length > TAG_VALUE_MAX) return null;
  return Object.fromEntries(entries);
}

export function parseMetadata(value: string): Record<string, unknown> | null {
  if (Buffer.byteLength(value) > METADATA_MAX_BYTES) return null;
  try {
    const parsed: unknown = JSON.parse(value);
    return isObject(parsed) && !exceedsJsonDepth(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** W3C Trace Context: version 00, or a later one read by its first four fields; ff and all-zero ids are invalid. */
export function parseTraceparent(value: string): { traceId: string; spanId: string } | null {
  const m = TRACEPARENT.exec(value.toLowerCase());
  if (!m || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined) || /^0+$/.test(m[2]) || /^0+$/.test(m[3]))
    return null;
  return { traceId: m[2], spanId: m[3] };
}

/**
 * The end user an OpenAI request names in its `user` field (as LiteLLM and Portkey record it): the trace's userId
 * when no `svc-user-id` header is sent. The same rule as the header applies; anything else is left out.
 */
export function endUserOf(body: Record<string, unknown> | undefined): string | undefined {
  const user = body?.user;
  return typeof user === 'string' && user !== '' ? (identifier(user) ?? undefined) : undefined;
}

export function callerContext(headers: IncomingHttpHeaders): CallerContext {
  const out: CallerContext = { tags: {}, metadata: {}, ignored: [] };
  const user = identifier(single(headers, 'svc-user-id'));
  if (user === null) out.ignored.push('svc-user-id');
  else out.userId = user;
  const session = identifier(single(headers, 'svc-session-id'));
  if (session === null) out.ignored.push('svc-session-id');
  else out.sessionId = session;
  const tags = single(headers, 'svc-tags');
  if (tags !== undefined) {
    const parsed = parseTags(tags);
    if (parsed === null) out.ignored.push('svc-tags');
    else out.tags = parsed;
  }
  const metadata = single(headers, 'svc-metadata');
  if (metadata !== undefined) {
    const parsed = parseMetadata(metadata);
    if (parsed === null) out.ignored.push('svc-metadata');
    else out.metadata = parsed;
  }
  const traceparent = single(headers, 'traceparent');
  if (traceparent !== undefined) {
    const parsed = parseTraceparent(traceparent);
    if (parsed === null) out.ignored.push('traceparent');
    else {
      out.parentTraceId = parsed.traceId;
      out.parentSpanId = parsed.spanId;
    }
  }
  return out;
}
