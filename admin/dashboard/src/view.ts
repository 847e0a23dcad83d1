// What a page gets from the shell, and what it returns.
import type { User } from './types.ts';

export interface ViewContext {
  project: string;
  params: Record<string, string>;
  query: URLSearchParams;
  user: User;
  /** False for viewers: pages leave out every control that changes something (the server refuses anyway). */
  canChange: boolean;
  /** Runs when the page is left (charts, timers). */
  onCleanup(fn: () => void): void;
  /** Replaces the query of the current page and renders it again. */
  setQuery(query: Record<string, string | undefined | null>): void;
  /** Renders the current page again (after a change). */
  refresh(): void;
}

export type View = (ctx: ViewContext) => Promise<Node> | Node;
