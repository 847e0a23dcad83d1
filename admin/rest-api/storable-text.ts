// Text PostgreSQL cannot store (src/platform/validation/storable-text.ts) anywhere in a REST request, refused as a 400
// naming where it is.
import type { preValidationAsyncHookHandler } from 'fastify';
import {
  printablePath,
  UNSTORABLE_REASON as REASON,
  unstorablePath,
} from '../../src/platform/validation/storable-text.ts';
import { RestApiError } from './rest-error.ts';

const PARTS = [
  ['params', 'path', 'Path parameter'],
  ['query', 'query', 'Query parameter'],
  ['body', 'body', 'Field'],
] as const;

export const refuseUnstorableText: preValidationAsyncHookHandler = async (req) => {
  for (const [part, location, label] of PARTS) {
    const path = unstorablePath(req[part]);
    if (!path) continue;
    const field = printablePath(path);
    if (field === '')
      throw new RestApiError('invalid_request', `The request ${location} ${REASON}.`, { reason: REASON, location });
    throw new RestApiError('invalid_request', `${label} ${field} ${REASON}.`, { field, reason: REASON, location });
  }
};
