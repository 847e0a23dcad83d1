// An OpenAI-moderation-compatible service: POST {url} {input, model?} → {results: [{flagged, categories, category_scores}]}.
import type { Dispatcher } from 'undici';
import { DetectionUnavailable, postDetection } from './detection-http.ts';
import { tally } from './tally.ts';
import type { RemoteDetector } from './types.ts';

export interface ModerationServiceConfig {
  type: 'openai-moderation';
  url: string;
  api_key?: string;
  model?: string;
  /** Only these categories count; without it, every category of a flagged result counts. */
  categories?: string[];
}

interface ModerationResult {
  flagged: boolean;
  categories: Record<string, unknown>;
}

function results(answer: unknown): ModerationResult[] {
  const list = (answer as { results?: unknown } | null)?.results;
  const valid =
    Array.isArray(list) &&
    list.length > 0 &&
    list.every((r) => typeof r?.flagged === 'boolean' && typeof r.categories === 'object' && r.categories !== null);
  if (!valid) throw new DetectionUnavailable('invalid answer');
  return list as ModerationResult[];
}

export function moderationService(
  name: string,
  config: ModerationServiceConfig,
  dispatcher: Dispatcher,
): RemoteDetector {
  const url = new URL(config.url);
  const headers: Record<string, string> = config.api_key ? { authorization: `Bearer ${config.api_key}` } : {};
  const only = config.categories ? new Set(config.categories) : undefined;
  return {
    service: name,
    async check(text, timeoutMs) {
      const answer = await postDetection(
        dispatcher,
        url,
        { input: text, ...(config.model ? { model: config.model } : {}) },
        headers,
        timeoutMs,
      );
      const hits: string[] = [];
      for (const r of results(answer)) {
        const categories = Object.keys(r.categories).filter(
          (c) => r.categories[c] === true && (only ? only.has(c) : r.flagged),
        );
        hits.push(...categories.map((c) => `${name}.${c}`));
        if (!only && r.flagged && categories.length === 0) hits.push(`${name}.flagged`);
      }
      // A moderation result judges the whole text: there is no position to give.
      return tally(hits.map((detector) => ({ detector })));
    },
  };
}
