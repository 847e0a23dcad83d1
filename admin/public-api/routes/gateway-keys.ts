// POST {platform_url}/api/public/v1/gateway/keys: key minting with a project key (docs/public-api.md
// "POST /api/public/v1/gateway/keys — key minting").
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  mintedKeyAnswer,
  mintGatewayKey,
  MintKeyError,
  parseMintKeyRequest,
  type MintedKey,
} from '../../../src/gateway/keys/mint-key.ts';
import type { AdminContext } from '../../context.ts';
import { PublicApiError } from '../public-error.ts';
import { principalOf, projectOf, requireKey } from '../route-access.ts';

/** Checked before the body is read, after the key: minting takes JSON only, and a form or text body is a client bug. */
async function requireJson(req: FastifyRequest): Promise<void> {
  const type = req.headers['content-type'];
  if (type === undefined || !/^application\/json\s*(;|$)/i.test(type)) {
    throw new PublicApiError('UnsupportedMediaTypeError', 'Content-Type must be application/json');
  }
}

/** 400 naming the field first in the message, or 409 for a taken alias. */
function toPublicError(err: MintKeyError): PublicApiError {
  return new PublicApiError(err.conflict ? 'ConflictError' : 'InvalidRequestError', err.message, {
    details: { field: err.field },
    cause: err,
  });
}

export function registerGatewayKeys(app: FastifyInstance, ctx: AdminContext): void {
  app.post('/v1/gateway/keys', { onRequest: [requireKey(ctx, 'project'), requireJson] }, async (req, reply) => {
    const project = projectOf(req);
    const { apiKey } = principalOf(req);
    let minted: MintedKey;
    try {
      minted = await mintGatewayKey(
        { db: ctx.db, now: ctx.clock.now(), modelGroupExists: (name) => ctx.modelGroups().get(name) !== undefined },
        { project, request: parseMintKeyRequest(req.body), actor: `api-key:${apiKey.id}` },
      );
    } catch (err) {
      throw err instanceof MintKeyError ? toPublicError(err) : err;
    }
    // The key is stored and audited; if this read fails the poll picks it up, and the plaintext must still reach the caller.
    await ctx.keys
      .refresh()
      .catch((err: Error) =>
        ctx.log.warn('gateway key refresh after minting failed; the next poll applies it', { error: err.message }),
      );
    reply.code(201).header('cache-control', 'no-store');
    return mintedKeyAnswer(minted);
  });
}
