// Shapes shared by the guardrail detectors: what a detector reports, never the text it matched.

/** Where a match is in the text a detector read: UTF-16 offsets, `[start, end)`. */
export type MatchRange = [start: number, end: number];

/**
 * How many times one kind of violation occurred and where, e.g. `{ detector: 'pii.email', count: 2, matches: [[4, 21],
 * [30, 45]] }`. A detector that cannot say where (a moderation service judges the whole text) has no matches.
 */
export interface Finding {
  detector: string;
  count: number;
  matches: MatchRange[];
}

export type PiiEntity = 'email' | 'phone' | 'credit_card' | 'iban' | 'us_ssn';
export type SecretKind =
  'aws_access_key' | 'private_key' | 'openai_key' | 'github_token' | 'slack_token' | 'stripe_key' | 'google_api_key';

/** A built-in detector as plain data: the same spec builds it inline or in a worker thread. */
export type LocalDetectorSpec =
  | { type: 'pii'; entities: PiiEntity[] }
  | { type: 'secrets'; kinds: SecretKind[] }
  | { type: 'injection'; builtin_phrases: boolean; phrases: string[] }
  | { type: 'regex'; name: string; patterns: string[]; case_insensitive: boolean };

/** A detector that runs in this thread on a text and returns what it found. */
export type LocalDetector = (text: string) => Finding[];

/** A detection service behind HTTP; `check` throws `DetectionUnavailable` when it cannot give an answer. */
export interface RemoteDetector {
  /** The service's name in the plugin config. */
  readonly service: string;
  check(text: string, timeoutMs: number): Promise<Finding[]>;
}
