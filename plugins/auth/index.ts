// auth: finds the caller's gateway key, checks it (blocked, expired, network), and resolves the model group.
import type { IncomingHttpHeaders } from 'node:http';
import {
  addressAllowed,
  definePlugin,
  GatewayError,
  hashKey,
  type KeyRecord,
  type KeyStore,
} from '../../src/plugin-api/index.ts';
import schema from './schema.json' with { type: 'json' };

function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  // A non-Bearer Authorization header (for example Basic added by a proxy) does not hide an api-key header.
  const match = headers.authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization);
  if (match) return match[1];
  const apiKey = headers['api-key'];
  return typeof apiKey === 'string' && apiKey.trim() !== '' ? apiKey.trim() : undefined;
}

// The refusals of an unknown caller, made once and thrown as they are: making an error captures a stack (several µs,
// a good part of what a wrong-key flood costs), and nothing reads the stack of a 401. Frozen, as they are shared.
const MISSING_KEY = Object.freeze(
  new GatewayError(
    'invalid_api_key',
    'Missing API key: send it as "Authorization: Bearer <key>" or in the "api-key" header.',
  ),
);
const UNKNOWN_KEY = Object.freeze(new GatewayError('invalid_api_key', 'Invalid API key.'));

/**
 * The record of the key the request presents; a missing or unknown key, or keys that cannot be confirmed current, are
 * refused. Both hooks call it: onRequestHead refuses before the body is read, onRequest finds the record again (a hash
 * and a Map get) and so stays whole on its own, also when the key changed while the body was coming in.
 */
function knownKey(headers: IncomingHttpHeaders, keys: KeyStore): KeyRecord {
  const key = presentedKey(headers);
  if (key === undefined) throw MISSING_KEY;
  if (keys.stale?.()) {
    throw new GatewayError(
      'gateway_config_stale',
      'The gateway cannot confirm its keys are current: its store is unavailable. Retry shortly.',
    );
  }
  const record = keys.find(hashKey(key));
  if (!record) throw UNKNOWN_KEY;
  return record;
}

export default definePlugin({
  apiVersion: 1,
  name: 'auth',
  configSchema: schema,
  setup(_config, services) {
    return {
      // A wrong-key flood is refused here, before any body is read or parsed.
      onRequestHead(head) {
        knownKey(head.headers, services.keys);
      },
      onRequest(ctx) {
        const record = knownKey(ctx.headers, services.keys);
        // docs/api.md files this under 401 invalid_api_key; checked before the principal is known, so it is not traced.
        if (record.servingOff)
          throw new GatewayError('invalid_api_key', "Invalid API key: serving is off for this key's project.");
        ctx.principal = {
          keyId: record.id,
          alias: record.alias,
          projectId: record.projectId,
          agentId: record.agentId,
          modelGroups: record.modelGroups,
          rpm: record.rpm,
          tpm: record.tpm,
          budgetUsd: record.budgetUsd,
          budgetPeriod: record.budgetPeriod,
          unit: record.unit,
        };
        if (record.blocked) throw new GatewayError('key_blocked', 'This API key is blocked.');
        if (record.expiresAtMs !== undefined && services.clock.now() >= record.expiresAtMs) {
          throw new GatewayError('key_expired', 'This API key has expired.');
        }
        if (record.networks && !addressAllowed(ctx.clientIp, record.networks)) {
          throw new GatewayError(
            'ip_not_allowed',
            `Requests from ${ctx.clientIp ?? 'an unknown address'} are not allowed for this API key.`,
          );
        }
        if (ctx.route === 'models') return;
        const requested = ctx.body?.model;
        let name: string;
        if (requested === undefined || requested === null || requested === '') {
          if (record.modelGroups.length !== 1) {
            throw new GatewayError(
              'model_not_allowed',
              `The "model" field is required: this key is granted ${record.modelGroups.length} model groups.`,
            );
          }
          name = record.modelGroups[0];
        } else {
          name = String(requested);
        }
        const group = record.modelGroups.includes(name) ? services.modelGroups.get(name) : undefined;
        if (!group) {
          throw new GatewayError(
            'model_not_allowed',
            `The model group '${name}' does not exist or this key is not allowed to use it.`,
          );
        }
        ctx.group = group;
      },
    };
  },
});
