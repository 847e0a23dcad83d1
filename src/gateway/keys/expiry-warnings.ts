// Warnings about keys of gateway.yaml that have expired or soon will: a key past its expiry is refused with
// 401 key_expired, and nothing else tells the operator before the first refused request.
import type { LoadedConfig } from '../../platform/config/load-config.ts';
import type { KeyConfig } from '../../platform/config/types.ts';
import { keyExpiry } from './key-store.ts';

/** How far ahead an expiry is announced. */
const EXPIRY_NOTICE_DAYS = 7;
const DAY_MS = 86_400_000;

type ExpiringKey = Pick<KeyConfig, 'alias' | 'expires_at' | 'rotated_at' | 'rotation_grace_hours'>;

/** One line per key that stopped working before `now` or stops within EXPIRY_NOTICE_DAYS of it. */
export function keyExpiryWarnings(keys: readonly ExpiringKey[], now: number): string[] {
  const warnings: string[] = [];
  for (const k of keys) {
    const expiry = keyExpiry(k);
    if (expiry === undefined || expiry - now > EXPIRY_NOTICE_DAYS * DAY_MS) continue;
    const at = new Date(expiry).toISOString();
    // The end of a rotation's grace window is when the old key stops working, whatever expires_at says.
    const setting = k.rotated_at && expiry !== Date.parse(k.expires_at ?? '') ? 'rotated_at' : 'expires_at';
    warnings.push(
      expiry <= now
        ? `key '${k.alias}' expired at ${at} (${setting}): requests with it get 401 key_expired`
        : `key '${k.alias}' expires at ${at} (${setting}), in ${durationText(expiry - now)}: then requests with it get 401 key_expired`,
    );
  }
  return warnings;
}

/** What a configuration warns about as of `now`: its own warnings, then its keys that expired or soon will. */
export function configWarnings(loaded: LoadedConfig, now: number): string[] {
  return [...loaded.warnings, ...keyExpiryWarnings(loaded.config.keys, now)];
}

/** `3 days`, `1 day`, `5 hours`, `under an hour`. */
function durationText(ms: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (ms >= DAY_MS) return plural(Math.floor(ms / DAY_MS), 'day');
  if (ms >= 3_600_000) return plural(Math.floor(ms / 3_600_000), 'hour');
  return 'under an hour';
}
