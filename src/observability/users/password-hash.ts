// Password hashing with scrypt (node:crypto). The stored string carries its own parameters and salt,
// `scrypt$N$r$p$<salt>$<hash>` (base64url), so the cost can be raised later without breaking stored hashes.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((done, fail) =>
    scryptCallback(password, salt, keylen, options, (err, key) => (err ? fail(err) : done(key))),
  );

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** OWASP's scrypt baseline (N=2^15, r=8, p=1): about 32 MiB and tens of milliseconds per hash. */
export const DEFAULT_PARAMS: ScryptParams = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;
// Above the parameters' own need (128·N·r bytes), which at the default equals Node's 32 MiB limit.
const maxmemFor = ({ N, r }: ScryptParams) => 256 * N * r;

export async function hashPassword(password: string, params: ScryptParams = DEFAULT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, KEY_BYTES, { ...params, maxmem: maxmemFor(params) });
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function parse(stored: string): { params: ScryptParams; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  // Bounds keep a damaged row from asking for gigabytes.
  const sane =
    Number.isInteger(N) &&
    N > 1 &&
    N <= 2 ** 20 &&
    (N & (N - 1)) === 0 &&
    Number.isInteger(r) &&
    r >= 1 &&
    r <= 32 &&
    Number.isInteger(p) &&
    p >= 1 &&
    p <= 16;
  const salt = Buffer.from(parts[4], 'base64url');
  const key = Buffer.from(parts[5], 'base64url');
  if (!sane || salt.length === 0 || key.length !== KEY_BYTES) return undefined;
  return { params: { N, r, p }, salt, key };
}

/** True when `password` matches the stored hash; false for a wrong password or a string that is not one of ours. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await scrypt(password, parsed.salt, KEY_BYTES, { ...parsed.params, maxmem: maxmemFor(parsed.params) });
  return timingSafeEqual(key, parsed.key);
}

/** A password for a new user (24 characters, 144 random bits), shown once. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
