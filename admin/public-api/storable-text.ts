// Text PostgreSQL cannot store (src/platform/validation/storable-text.ts) anywhere in a public API request, and ids in paths or
// indexed body fields (those a route's body schema marks `"x-indexed": true`) longer than an index entry holds: a 400
// in the public API's envelope naming the field, instead of a failed statement (a 500). It runs after validation, so
// unknown fields are already dropped and known ones have their types. Routes that check each item of a batch
// themselves (ingestion, OTel, score batches) declare CHECKS_ITS_OWN_BODY as their config; their paths and queries
// are still checked here.
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import {
  fitsIndex,
  MAX_INDEXED_BYTES,
  printablePath,
  UNSTORABLE_REASON,
  unstorablePath,
} from '../../src/platform/validation/storable-text.ts';
import { PublicApiError } from './public-error.ts';

export const CHECKS_ITS_OWN_BODY = { checksItsOwnBody: true } as const;

export const TOO_LONG_FOR_INDEX = `must be at most ${MAX_INDEXED_BYTES} bytes in UTF-8 (it is stored in an index)`;

const LABELS = { path: 'Path parameter', query: 'Query parameter', body: 'Field' } as const;

/** `{ message: "Field name contains …", error: "InvalidRequestError", details: { field, location } }`, as key minting answers. */
function refusal(location: keyof typeof LABELS, path: string[], reason: string): PublicApiError {
  const field = printablePath(path) || location;
  return new PublicApiError('InvalidRequestError', `${LABELS[location]} ${field} ${reason}`, {
    details: { field, location },
  });
}

const isPlain = (v: unknown) => v !== null && typeof v === 'object' && !Buffer.isBuffer(v);

/** The top-level body fields the route's schema marks as indexed. */
function indexedFields(req: FastifyRequest): string[] {
  const properties =
    (req.routeOptions.schema?.body as { properties?: Record<string, { 'x-indexed'?: boolean }> } | undefined)
      ?.properties ?? {};
  return Object.keys(properties).filter((field) => properties[field]['x-indexed'] === true);
}

export const refuseUnstorableInput: preHandlerAsyncHookHandler = async (req) => {
  const params = (req.params ?? {}) as Record<string, unknown>;
  const inParams = unstorablePath(params);
  if (inParams) throw refusal('path', inParams, UNSTORABLE_REASON);
  // No stored id is longer (every write bounds them), so a longer one is a client's mistake rather than a miss.
  for (const [name, value] of Object.entries(params))
    if (typeof value === 'string' && !fitsIndex(value)) throw refusal('path', [name], TOO_LONG_FOR_INDEX);
  const inQuery = unstorablePath(req.query);
  if (inQuery) throw refusal('query', inQuery, UNSTORABLE_REASON);
  const config = req.routeOptions.config as Partial<typeof CHECKS_ITS_OWN_BODY>;
  if (config.checksItsOwnBody || !isPlain(req.body)) return;
  const inBody = unstorablePath(req.body);
  if (inBody) throw refusal('body', inBody, UNSTORABLE_REASON);
  const body = req.body as Record<string, unknown>;
  for (const field of indexedFields(req)) {
    const value = body[field];
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && !fitsIndex(v))) throw refusal('body', [field], TOO_LONG_FOR_INDEX);
  }
};
