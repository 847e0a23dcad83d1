// Prices and requests whose costs read as token counts, for the budget and rate-limit plugin tests.
import type { Usage } from '../../src/plugin-api.ts';

export const key = (name: string) => `sk-test-${name}-0123456789abcdef`;
/** One token costs $0.001 in and out, so costs read as token counts. */
export const PRICE = { input_per_mtok: 1000, output_per_mtok: 1000 };
/** Prompt estimate of one "Hello" message. */
export const HELLO_PROMPT = 9;
/** max_tokens that makes a "Hello" request reserve exactly 100 tokens, and its worst case $0.10. */
export const TENTH = 100 - HELLO_PROMPT;
export const NANO = 1e9;
/** What an answered request uses: 29 tokens, $0.029. */
export const USED: Usage = { prompt_tokens: 9, completion_tokens: 20, total_tokens: 29 };
