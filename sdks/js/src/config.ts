// Settings from constructor options, else the environment, checked once at construction so a missing or malformed
// one fails there with the variable's name rather than at the first request.
import { SvcConfigError } from './errors.ts';

export interface ConnectionOptions {
  /** Project public key (`pk-…`); default: `SVC_PUBLIC_KEY`. */
  publicKey?: string;
  /** Project secret key (`sk-…`); default: `SVC_SECRET_KEY`. Keep it server-side. */
  secretKey?: string;
  /** Base URL of the svc admin listener, e.g. `http://localhost:8081`; default: `SVC_BASE_URL`. */
  baseUrl?: string;
}

export interface Connection {
  publicKey: string;
  secretKey: string;
  /** Without a trailing slash. */
  baseUrl: string;
  /** The `Authorization` header value: Basic auth with the key pair. */
  authorization: string;
}

type Env = Record<string, string | undefined>;

/** The option if given, else the environment variable; the name to report is the one the value came from. */
export function setting(
  option: string | undefined,
  optionName: string,
  variable: string,
  env: Env = process.env,
): { value: string; name: string } {
  if (option !== undefined) return { value: option, name: optionName };
  const fromEnv = env[variable];
  if (fromEnv === undefined || fromEnv.trim() === '')
    throw new SvcConfigError(
      variable,
      `is not set: set the ${variable} environment variable or pass the ${optionName} option`,
    );
  return { value: fromEnv, name: variable };
}

function checkedKey(value: string, name: string, kind: 'public' | 'secret'): string {
  const key = value.trim();
  if (key === '') throw new SvcConfigError(name, 'is empty');
  if (/\s/.test(key)) throw new SvcConfigError(name, 'contains whitespace');
  if (kind === 'public' && key.includes(':')) throw new SvcConfigError(name, 'contains ":", which no public key has');
  if (kind === 'public' && key.startsWith('sk-'))
    throw new SvcConfigError(name, 'holds a secret key (sk-…); it takes the public key (pk-…)');
  if (kind === 'secret' && key.startsWith('pk-'))
    throw new SvcConfigError(name, 'holds a public key (pk-…); it takes the secret key (sk-…)');
  return key;
}

/** An http(s) URL without credentials, query or fragment, returned without its trailing slashes. */
export function checkedBaseUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new SvcConfigError(name, `is not a URL: ${JSON.stringify(value)} (expected e.g. http://localhost:8081)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SvcConfigError(name, `must be an http or https URL, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '')
    throw new SvcConfigError(name, 'must not carry credentials; use the key options');
  if (url.search !== '' || url.hash !== '') throw new SvcConfigError(name, 'must not have a query or fragment');
  return url.href.replace(/\/+$/, '');
}

/** The project key pair and admin base URL, from options else `SVC_PUBLIC_KEY`, `SVC_SECRET_KEY`, `SVC_BASE_URL`. */
export function resolveConnection(options: ConnectionOptions, env: Env = process.env): Connection {
  const pk = setting(options.publicKey, 'publicKey', 'SVC_PUBLIC_KEY', env);
  const sk = setting(options.secretKey, 'secretKey', 'SVC_SECRET_KEY', env);
  const base = setting(options.baseUrl, 'baseUrl', 'SVC_BASE_URL', env);
  const publicKey = checkedKey(pk.value, pk.name, 'public');
  const secretKey = checkedKey(sk.value, sk.name, 'secret');
  const baseUrl = checkedBaseUrl(base.value, base.name);
  if (/\/api\/public$/.test(baseUrl))
    throw new SvcConfigError(base.name, 'must be the base URL of the admin listener, without /api/public');
  if (/\/v1$/.test(baseUrl))
    throw new SvcConfigError(
      base.name,
      'must be the base URL of the admin listener (e.g. http://localhost:8081), not a /v1 API URL',
    );
  return {
    publicKey,
    secretKey,
    baseUrl,
    authorization: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}`,
  };
}

/** A positive finite number option, or its default. */
export function positiveNumber(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new SvcConfigError(name, `must be a positive number, not ${String(value)}`);
  return value;
}

/** A whole-number option of at least `min`, or its default. */
export function countOption(value: number | undefined, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min)
    throw new SvcConfigError(name, `must be a whole number of ${min} or more, not ${String(value)}`);
  return value;
}

/** The REST timeout in milliseconds: the option, else `SVC_TIMEOUT` (seconds), else 5,000. */
export function timeoutMsOption(value: number | undefined, env: Env = process.env): number {
  if (value !== undefined) return positiveNumber(value, 'timeoutMs', value);
  const raw = env.SVC_TIMEOUT?.trim();
  if (raw === undefined || raw === '') return 5_000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new SvcConfigError('SVC_TIMEOUT', `must be a positive number of seconds, not ${JSON.stringify(raw)}`);
  return seconds * 1000;
}
