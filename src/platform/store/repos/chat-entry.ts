// The entries of a chat prompt, as the prompts repository stores them (prompts.ts) and as composition
// (src/observability/prompts/) reads and rewrites them.

/** A chat prompt's entry: a message, or a placeholder filled in at compile time. */
export type ChatEntry = { role: string; content: string; type?: 'chatmessage' } | { type: 'placeholder'; name: string };
