import type { AdminContext } from '../context.ts';

/**
 * Applies a key or agent change to this process's key cache before the answer goes out. The change is stored and
 * audited already; if this read fails, the next poll applies it.
 */
export function refreshKeyCache(ctx: AdminContext): Promise<void> {
  return ctx.keys.refresh().catch((err: Error) =>
    ctx.log.warn('gateway key refresh after a dashboard change failed; the next poll applies it', {
      error: err.message,
    }),
  );
}
