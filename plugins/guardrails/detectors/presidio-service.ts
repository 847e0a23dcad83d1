// A Presidio-analyzer-compatible service: POST {url}/analyze {text, language, entities?, score_threshold?}
// → [{entity_type, start, end, score}].
import type { Dispatcher } from 'undici';
import { DetectionUnavailable, postDetection } from './detection-http.ts';
import { tally } from './tally.ts';
import type { MatchRange, RemoteDetector } from './types.ts';

export interface PresidioServiceConfig {
  type: 'presidio';
  url: string;
  language: string;
  entities?: string[];
  score_threshold?: number;
}

interface RecognizerResult {
  entity_type: string;
  score: number;
  start?: unknown;
  end?: unknown;
}

/** Presidio (Python) counts offsets in code points, JavaScript strings in UTF-16 units; nonsense offsets give none. */
function utf16Range(text: string, start: unknown, end: unknown): MatchRange | undefined {
  if (
    typeof start !== 'number' ||
    typeof end !== 'number' ||
    !Number.isInteger(start) ||
    !Number.isInteger(end) ||
    start < 0 ||
    end <= start
  )
    return undefined;
  if (!/[\uD800-\uDFFF]/.test(text)) return end <= text.length ? [start, end] : undefined;
  let codePoint = 0;
  let unit = 0;
  let from: number | undefined;
  for (const ch of text) {
    if (codePoint === start) from = unit;
    codePoint++;
    unit += ch.length;
    if (codePoint === end) return from === undefined ? undefined : [from, unit];
  }
  return undefined;
}

function recognized(answer: unknown): RecognizerResult[] {
  const valid =
    Array.isArray(answer) && answer.every((r) => typeof r?.entity_type === 'string' && typeof r.score === 'number');
  if (!valid) throw new DetectionUnavailable('invalid answer');
  return answer as RecognizerResult[];
}

export function presidioService(name: string, config: PresidioServiceConfig, dispatcher: Dispatcher): RemoteDetector {
  const url = new URL(`${config.url.replace(/\/+$/, '')}/analyze`);
  const threshold = config.score_threshold ?? 0;
  const request = (text: string) => ({
    text,
    language: config.language,
    ...(config.entities ? { entities: config.entities } : {}),
    ...(config.score_threshold === undefined ? {} : { score_threshold: config.score_threshold }),
  });
  return {
    service: name,
    async check(text, timeoutMs) {
      const answer = await postDetection(dispatcher, url, request(text), {}, timeoutMs);
      // The threshold is applied again here: a compatible service may ignore it.
      return tally(
        recognized(answer)
          .filter((r) => r.score >= threshold)
          .map((r) => ({ detector: `${name}.${r.entity_type}`, at: utf16Range(text, r.start, r.end) })),
      );
    },
  };
}
