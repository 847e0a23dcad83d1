// The OpenAI wire shapes the gateway speaks on both sides: client bodies, provider answers after translation, and
// the normalised chunks of a stream. The plugin contract (src/plugin-api/contract.ts) re-exports what plugins need.

export type JsonObject = Record<string, unknown>;

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: {
    cached_tokens?: number;
    /** Cache writes, as LiteLLM names them; translated providers set it when there were any. */
    cache_creation_tokens?: number;
    /** The writes by cache duration, when the provider reports it (Anthropic `cache_creation`). */
    cache_creation_token_details?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number };
    [k: string]: unknown;
  };
  completion_tokens_details?: { reasoning_tokens?: number; [k: string]: unknown };
}

/** An OpenAI `chat.completion.chunk` object. */
export type ChatChunk = JsonObject & { choices?: unknown[]; usage?: Usage | null };
