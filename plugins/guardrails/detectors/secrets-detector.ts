// Secrets: cloud and API credentials whose format is published by their issuer, and PEM private key blocks.
import { scanPatterns, type DetectorPattern } from './pattern-scan.ts';
import type { LocalDetector, SecretKind } from './types.ts';

/** Generated keys mix cases and digits; a word like `sk-learn-library-docs` does not. */
function looksRandom(match: RegExpExecArray): boolean {
  const s = match[0];
  return /\d/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s);
}

const PATTERNS: Record<SecretKind, DetectorPattern> = {
  aws_access_key: {
    detector: 'secrets.aws_access_key',
    regex: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  },
  private_key: { detector: 'secrets.private_key', regex: /-----BEGIN[A-Z ]{0,40} PRIVATE KEY(?: BLOCK)?-----/g },
  openai_key: {
    detector: 'secrets.openai_key',
    regex: /(?<![\w-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
    valid: looksRandom,
  },
  github_token: {
    detector: 'secrets.github_token',
    regex: /(?<!\w)(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})(?!\w)/g,
  },
  slack_token: { detector: 'secrets.slack_token', regex: /(?<![\w-])xox[abposr]-(?:\d+-)+[A-Za-z0-9]{8,}/g },
  stripe_key: { detector: 'secrets.stripe_key', regex: /(?<!\w)(?:sk|rk)_live_[A-Za-z0-9]{24,}(?!\w)/g },
  google_api_key: { detector: 'secrets.google_api_key', regex: /(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g },
};

export const SECRET_KINDS = Object.keys(PATTERNS) as SecretKind[];

export function secretsDetector(kinds: readonly SecretKind[]): LocalDetector {
  const patterns = kinds.map((k) => PATTERNS[k]);
  return (text) => scanPatterns(patterns, text);
}
