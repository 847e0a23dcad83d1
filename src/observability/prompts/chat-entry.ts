// The entries of a chat prompt, as stored (store/repos/prompts.ts) and as composition reads and rewrites them.

/** A chat prompt's entry: a message, or a placeholder filled in at compile time. */
export type ChatEntry = { role: string; content: string; type?: 'chatmessage' } | { type: 'placeholder'; name: string };
