import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyConfig, BudgetPeriod } from '../../platform/config/types.ts';
import type { LocalStateFile } from '../../platform/store/local-state.ts';
import { parseNetworks, type Network } from '../../platform/networks.ts';
import { hashKey, type KeyRecord, type KeyStore } from '../../plugin-api/services.ts';

export function generateKey(): string {
  return `sk-svc-${randomBytes(24).toString('base64url')}`;
}

/** When a configured key stops working: its expiry, or the end of the grace window after a rotation. */
export function keyExpiry(
  k: Pick<KeyConfig, 'expires_at' | 'rotated_at' | 'rotation_grace_hours'>,
): number | undefined {
  const expires = k.expires_at ? Date.parse(k.expires_at) : undefined;
  const graceEnd = k.rotated_at ? Date.parse(k.rotated_at) + k.rotation_grace_hours * 3_600_000 : undefined;
  if (expires === undefined) return graceEnd;
  if (graceEnd === undefined) return expires;
  return Math.min(expires, graceEnd);
}

export interface GeneratedKey {
  alias: string;
  key: string;
}

/**
 * Keys declared in gateway.yaml. A key whose `key` is empty (for example `${SVC_DEMO_KEY}` unset) gets a
 * generated key on first start: its hash is kept under data_dir and the plaintext is returned once to print.
 */
export function configKeyStore(
  keys: readonly KeyConfig[],
  localState: LocalStateFile,
): { store: KeyStore; generated: GeneratedKey[] } {
  const generated: GeneratedKey[] = [];
  const byHash = new Map<string, KeyRecord>();
  for (const k of keys) {
    let hash: Buffer;
    if (k.key) hash = hashKey(k.key);
    else if (k.key_sha256) hash = Buffer.from(k.key_sha256, 'hex');
    else {
      const kept = localState.state.generated_keys[k.alias];
      if (kept) hash = Buffer.from(kept, 'hex');
      else {
        const key = generateKey();
        hash = hashKey(key);
        localState.update((s) => {
          s.generated_keys[k.alias] = hash.toString('hex');
          return true;
        });
        generated.push({ alias: k.alias, key });
      }
    }
    byHash.set(hash.toString('hex'), {
      id: k.alias,
      alias: k.alias,
      projectId: k.project,
      agentId: k.agent,
      modelGroups: k.model_groups,
      hash,
      expiresAtMs: keyExpiry(k),
      blocked: k.blocked,
      networks: k.allowed_networks && k.allowed_networks.length > 0 ? parseNetworks(k.allowed_networks) : undefined,
      rpm: k.rpm,
      tpm: k.tpm,
      budgetUsd: k.budget_usd,
      budgetPeriod: k.budget_period,
      unit: k.unit,
    });
  }
  return {
    generated,
    store: {
      find(hash) {
        const record = byHash.get(hash.toString('hex'));
        return record && timingSafeEqual(record.hash, hash) ? record : undefined;
      },
    },
  };
}
