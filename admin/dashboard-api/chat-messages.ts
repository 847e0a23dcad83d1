// Chat messages in a trace's input or output, as the dashboard reads them: `[{role, content}]`, `{messages: […]}` or
// one `{role, content}`. Shared by the trace list's previews (server) and the chat bubbles of the pages (browser).

export interface Message {
  role: string;
  content: unknown;
}

export const isMessage = (v: unknown): v is Message =>
  typeof v === 'object' && v !== null && typeof (v as Message).role === 'string' && 'content' in v;

/** The chat messages a value holds, or undefined when it is not a chat. */
export function messagesOf(v: unknown): Message[] | undefined {
  if (Array.isArray(v)) return v.length > 0 && v.every(isMessage) ? v : undefined;
  if (isMessage(v)) return [v];
  if (typeof v === 'object' && v !== null && Array.isArray((v as { messages?: unknown }).messages))
    return messagesOf((v as { messages: unknown }).messages);
  return undefined;
}
