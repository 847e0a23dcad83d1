// What the prompt pages read from /dashboard/api: a prompt's versions, and what used each version.
import { badge } from '../ui.ts';

export type { PromptGeneration, PromptVersionUsage } from '../../../../src/platform/store/repos/prompt-usage.ts';

export type ChatMessage = { role?: string; content?: unknown; type?: string; name?: string };

export interface PromptVersion {
  id: string;
  name: string;
  version: number;
  type: 'text' | 'chat';
  prompt: string | ChatMessage[];
  config: unknown;
  labels: string[];
  tags: string[];
  commitMessage: string | null;
  createdAt: string;
  createdBy?: string | null;
}

/** `latest` follows the newest version on its own: no one sets or removes it. */
export const LATEST = 'latest';

export const labelBadge = (label: string) => badge(label, label === 'production' ? 'ok' : 'muted');

export const isPlaceholder = (m: ChatMessage) => m.type === 'placeholder';
