// Prompt-version events (docs/webhooks.md): whatever changes a prompt version (the public API, the dashboard, a CLI)
// reports it here, inside the transaction that made the change, so the event is stored exactly when the change is
// (the webhook outbox, src/observability/webhooks/outbox-recorder.ts) and delivered later, also across restarts. The
// prompts repository reports through this interface; the outbox implements it.
import type { Queryable } from '../database.ts';

/** The Prompt Version of the webhook delivery body (docs/webhooks.md, The delivery body). */
export interface PromptVersionPayload {
  id: string;
  name: string;
  version: number;
  projectId: string;
  labels: string[];
  /** Text prompts: the text; chat prompts: the messages as JSON text. */
  prompt: string;
  type: 'text' | 'chat';
  config: Record<string, unknown>;
  commitMessage: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}

export interface PromptVersionEvent {
  action: 'created' | 'updated' | 'deleted';
  prompt: PromptVersionPayload;
}

export interface PromptVersionEvents {
  /** Records the events in the caller's transaction; delivery happens after it commits. */
  record(tx: Queryable, events: readonly PromptVersionEvent[]): Promise<void>;
}
