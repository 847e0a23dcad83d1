// Each process keeps a project's model matcher in memory: models change rarely and every ingested generation needs
// one. A create or delete in this process drops the entry at once; other replicas see the change within TTL_MS.
import type { Queryable } from '../store/database.ts';
import { listModels } from '../store/repos/models.ts';
import { modelMatcher, type ModelMatcher } from './model-matcher.ts';

export const TTL_MS = 30_000;

interface Entry {
  loadedAt: number;
  matcher: Promise<ModelMatcher>;
}

// Keyed by the database object, so services (and test runs) sharing a process never see each other's models.
const caches = new WeakMap<Queryable, Map<string, Entry>>();

function cacheOf(db: Queryable): Map<string, Entry> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  return cache;
}

export function projectModelMatcher(db: Queryable, projectId: string, now = Date.now()): Promise<ModelMatcher> {
  const cache = cacheOf(db);
  const hit = cache.get(projectId);
  if (hit && now - hit.loadedAt < TTL_MS) return hit.matcher;
  const matcher = listModels(db, projectId).then((models) => modelMatcher(models));
  // A failed load is not kept: the next call tries again.
  matcher.catch(() => cache.get(projectId)?.matcher === matcher && cache.delete(projectId));
  cache.set(projectId, { loadedAt: now, matcher });
  return matcher;
}

export function forgetProjectModels(db: Queryable, projectId: string): void {
  caches.get(db)?.delete(projectId);
}
