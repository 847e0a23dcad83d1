// Prompt versions (docs/public-api.md "Prompts — /api/public/v2/prompts"). Every change runs in one transaction that
// first takes an advisory lock on the prompt name (so two creates of a new name cannot both take version 1) and then
// row locks on its versions, keeps labels unique per name and `latest` on the newest version, and reports each version
// it changed to the prompt-version events (docs/webhooks.md) in that same transaction.
import { randomUUID } from 'node:crypto';
import type { ChatEntry } from './chat-entry.ts';
import { referencesIn } from './prompt-references.ts';
import type { PromptVersionEvent, PromptVersionEvents, PromptVersionPayload } from './prompt-version-events.ts';
import type { Database, Queryable } from '../database.ts';
import { conditions, iso, json, num } from './rows.ts';

export type PromptType = 'text' | 'chat';

export interface StoredPrompt {
  id: string;
  projectId: string;
  name: string;
  version: number;
  type: PromptType;
  prompt: string | ChatEntry[];
  config: Record<string, unknown>;
  labels: string[];
  tags: string[];
  commitMessage: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** The label the server keeps on the newest version of each name; clients cannot move it. */
export const LATEST = 'latest';

/** A refused change: `invalid` is the caller's mistake (400), `not_found` a missing prompt or version (404). */
export class PromptError extends Error {
  readonly kind: 'invalid' | 'not_found';

  constructor(kind: 'invalid' | 'not_found', message: string) {
    super(message);
    this.kind = kind;
  }
}

function toPrompt(r: Record<string, any>): StoredPrompt {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    version: num(r.version),
    type: r.type,
    prompt: r.prompt,
    config: r.config ?? {},
    labels: r.labels ?? [],
    tags: r.tags ?? [],
    commitMessage: r.commit_message ?? null,
    createdBy: r.created_by,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

/** The webhook's Prompt Version: a chat prompt's messages travel as their JSON text (`prompt` is a string there). */
export function promptVersionPayload(p: StoredPrompt): PromptVersionPayload {
  return {
    id: p.id,
    name: p.name,
    version: p.version,
    projectId: p.projectId,
    labels: p.labels,
    prompt: typeof p.prompt === 'string' ? p.prompt : JSON.stringify(p.prompt),
    type: p.type,
    config: p.config,
    commitMessage: p.commitMessage,
    tags: p.tags,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

const event = (action: PromptVersionEvent['action'], p: StoredPrompt): PromptVersionEvent => ({
  action,
  prompt: promptVersionPayload(p),
});

async function record(
  tx: Queryable,
  events: PromptVersionEvents | undefined,
  list: PromptVersionEvent[],
): Promise<void> {
  if (events && list.length > 0) await events.record(tx, list);
}

/** Serialises the writers of one name, then locks and returns its versions, oldest first. */
async function lockName(tx: Queryable, projectId: string, name: string): Promise<StoredPrompt[]> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`prompt:${projectId}:${name}`]);
  const r = await tx.query('SELECT * FROM prompts WHERE project_id = $1 AND name = $2 ORDER BY version FOR UPDATE', [
    projectId,
    name,
  ]);
  return r.rows.map(toPrompt);
}

async function setLabelsAndTags(
  tx: Queryable,
  p: StoredPrompt,
  labels: string[],
  tags: string[],
): Promise<StoredPrompt> {
  const r = await tx.query(
    'UPDATE prompts SET labels = $2::text[], tags = $3::text[], updated_at = now() WHERE id = $1 RETURNING *',
    [p.id, labels, tags],
  );
  return toPrompt(r.rows[0]);
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);
const unique = (values: readonly string[]) => [...new Set(values)];

/**
 * Writes the label and tag lists wanted for each of `versions` that differs from what is stored; returns the
 * versions written (each one an `updated` event).
 */
async function applyChanges(
  tx: Queryable,
  versions: StoredPrompt[],
  wanted: (p: StoredPrompt) => { labels: string[]; tags: string[] },
): Promise<StoredPrompt[]> {
  const changed: StoredPrompt[] = [];
  for (const p of versions) {
    const { labels, tags } = wanted(p);
    if (!sameList(labels, p.labels) || !sameList(tags, p.tags))
      changed.push(await setLabelsAndTags(tx, p, labels, tags));
  }
  return changed;
}

export interface NewPromptVersion {
  name: string;
  type: PromptType;
  prompt: string | ChatEntry[];
  config?: Record<string, unknown>;
  labels?: string[];
  /** Omitted: the previous version's tags. Given: the tags of every version of the name (Langfuse). */
  tags?: string[];
  commitMessage?: string | null;
  createdBy: string;
}

/** Creates the next version of `name`: it gets `latest` and its labels, which leave every other version. */
export async function createPromptVersion(
  db: Database,
  projectId: string,
  v: NewPromptVersion,
  events?: PromptVersionEvents,
): Promise<StoredPrompt> {
  return db.transaction(async (tx) => {
    const existing = await lockName(tx, projectId, v.name);
    const newest = existing.at(-1);
    if (newest && newest.type !== v.type) {
      throw new PromptError(
        'invalid',
        `Previous versions have different prompt type. Create a new prompt with a different name. Previous type: ${newest.type}, new type: ${v.type}.`,
      );
    }
    const labels = unique([...(v.labels ?? []).filter((l) => l !== LATEST), LATEST]);
    const tags = unique(v.tags ?? newest?.tags ?? []);
    const moved = new Set(labels);
    const updated = await applyChanges(tx, existing, (p) => ({ labels: p.labels.filter((l) => !moved.has(l)), tags }));
    const r = await tx.query(
      `INSERT INTO prompts (id, project_id, name, version, type, prompt, config, labels, tags, commit_message, created_by)
       VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7::text::jsonb, $8::text[], $9::text[], $10, $11) RETURNING *`,
      [
        randomUUID(),
        projectId,
        v.name,
        (newest?.version ?? 0) + 1,
        v.type,
        json(v.prompt),
        json(v.config ?? {}),
        labels,
        tags,
        v.commitMessage ?? null,
        v.createdBy,
      ],
    );
    const created = toPrompt(r.rows[0]);
    await record(tx, events, [event('created', created), ...updated.map((p) => event('updated', p))]);
    return created;
  });
}

/** A label change: the version before and after, and the other versions it changed. */
export type Relabelled = { before: StoredPrompt; after: StoredPrompt; others: StoredPrompt[] };
/** What a label change also does in its transaction: record its events, write its audit row. */
export type RelabelHooks = { events?: PromptVersionEvents; audit?: (tx: Queryable, c: Relabelled) => Promise<void> };

/**
 * Puts `given` on the version and takes them off every other version; `labelsOf` says what the version ends up with.
 * The version asked for is written (and reported) even when nothing changed on it: the caller touched it.
 */
async function relabel(
  db: Database,
  at: { projectId: string; name: string; version: number },
  given: readonly string[],
  labelsOf: (target: StoredPrompt) => string[],
  hooks: RelabelHooks = {},
): Promise<StoredPrompt> {
  if (given.includes(LATEST))
    throw new PromptError(
      'invalid',
      `The label '${LATEST}' is managed by the server: it always marks the newest version.`,
    );
  return db.transaction(async (tx) => {
    const versions = await lockName(tx, at.projectId, at.name);
    const target = versions.find((p) => p.version === at.version);
    if (!target) throw new PromptError('not_found', `Prompt not found: '${at.name}' with version ${at.version}`);
    const moved = new Set(given);
    const others = await applyChanges(
      tx,
      versions.filter((p) => p !== target),
      (p) => ({ labels: p.labels.filter((l) => !moved.has(l)), tags: p.tags }),
    );
    const updated = await setLabelsAndTags(tx, target, labelsOf(target), target.tags);
    const updates = [updated, ...others].map((p) => event('updated', p));
    await record(tx, hooks.events, updates);
    await hooks.audit?.(tx, { before: target, after: updated, others });
    return updated;
  });
}

/** Adds `newLabels` to the version (existing labels stay, Langfuse's PATCH) and takes them off every other version. */
export function addPromptLabels(
  db: Database,
  projectId: string,
  name: string,
  version: number,
  newLabels: readonly string[],
  events?: PromptVersionEvents,
): Promise<StoredPrompt> {
  return relabel(db, { projectId, name, version }, newLabels, (target) => unique([...target.labels, ...newLabels]), {
    events,
  });
}

/**
 * Gives the version exactly `labels` (the dashboard's PUT), moving them from other versions; `latest` stays where the
 * server keeps it.
 */
export function setPromptLabels(
  db: Database,
  projectId: string,
  name: string,
  version: number,
  labels: readonly string[],
  hooks: RelabelHooks = {},
): Promise<StoredPrompt> {
  return relabel(
    db,
    { projectId, name, version },
    labels,
    // The labels it keeps in their order, then the new ones: a move without removals ends as the public PATCH's.
    (target) => unique([...target.labels.filter((l) => l === LATEST || labels.includes(l)), ...labels]),
    hooks,
  );
}

/** Versions chosen by number, by label, or all of them. */
export type PromptSelector = { version: number } | { label: string } | { all: true };

const describe = (s: PromptSelector) =>
  'version' in s ? ` with version ${s.version}` : 'label' in s ? ` with label '${s.label}'` : '';

/**
 * Refuses (Langfuse's 400) a deletion that would leave another prompt's composition reference without a target: a
 * version deleted, or a label no version left carries (`latest` moves to the newest version left).
 */
async function refuseBreakingReferences(
  tx: Queryable,
  projectId: string,
  name: string,
  doomed: readonly StoredPrompt[],
  left: readonly StoredPrompt[],
): Promise<void> {
  const tag = `%@@@langfusePrompt:name=${JSON.stringify(name)
    .slice(1, -1)
    .replace(/[\\%_]/g, (c) => `\\${c}`)}|%`;
  const candidates = await tx.query(
    'SELECT * FROM prompts WHERE project_id = $1 AND name <> $2 AND prompt::text LIKE $3 ORDER BY name, version',
    [projectId, name, tag],
  );
  const labelsLeft = new Set([...left.flatMap((p) => p.labels), ...(left.length > 0 ? [LATEST] : [])]);
  const deletedVersions = new Set(doomed.map((p) => p.version));
  const broken = candidates.rows.map(toPrompt).flatMap((parent) =>
    referencesIn(parent.prompt)
      .filter(
        (ref) =>
          ref.name === name && ('version' in ref ? deletedVersions.has(ref.version) : !labelsLeft.has(ref.label)),
      )
      .map(
        (ref) =>
          `${parent.name} v${parent.version} depends on ${name} ${'version' in ref ? `v${ref.version}` : ref.label}`,
      ),
  );
  if (broken.length > 0) {
    throw new PromptError(
      'invalid',
      `Other prompts are depending on prompt versions you are trying to delete:\n\n${broken.join('\n')}\n\nPlease delete the dependent prompts first.`,
    );
  }
}

/**
 * Deletes the versions chosen (all when none is chosen); 404 when none matches, 400 when another prompt's reference
 * needs them. When the newest version goes, `latest` moves to the newest one left (an `updated` event).
 */
export async function deletePromptVersions(
  db: Database,
  projectId: string,
  name: string,
  selector: PromptSelector,
  events?: PromptVersionEvents,
): Promise<StoredPrompt[]> {
  return db.transaction(async (tx) => {
    const versions = await lockName(tx, projectId, name);
    const doomed = versions.filter((p) =>
      'version' in selector
        ? p.version === selector.version
        : 'label' in selector
          ? p.labels.includes(selector.label)
          : true,
    );
    if (doomed.length === 0) throw new PromptError('not_found', `Prompt not found: '${name}'${describe(selector)}`);
    const left = versions.filter((p) => !doomed.includes(p));
    await refuseBreakingReferences(tx, projectId, name, doomed, left);
    await tx.query('DELETE FROM prompts WHERE id = ANY($1::text[])', [doomed.map((p) => p.id)]);
    const newest = left.at(-1);
    const updated = await applyChanges(tx, newest ? [newest] : [], (p) => ({
      labels: unique([...p.labels, LATEST]),
      tags: p.tags,
    }));
    await record(tx, events, [...doomed.map((p) => event('deleted', p)), ...updated.map((p) => event('updated', p))]);
    return doomed;
  });
}

/** One version by number or label (default: the label `production`). */
export async function getPromptVersion(
  db: Queryable,
  projectId: string,
  name: string,
  selector: { version: number } | { label: string },
): Promise<StoredPrompt | undefined> {
  const r =
    'version' in selector
      ? await db.query('SELECT * FROM prompts WHERE project_id = $1 AND name = $2 AND version = $3', [
          projectId,
          name,
          selector.version,
        ])
      : await db.query('SELECT * FROM prompts WHERE project_id = $1 AND name = $2 AND labels @> ARRAY[$3]::text[]', [
          projectId,
          name,
          selector.label,
        ]);
  return r.rows[0] ? toPrompt(r.rows[0]) : undefined;
}

export interface PromptListFilter {
  name?: string;
  label?: string;
  tag?: string;
  /** Inclusive lower bound on a version's updatedAt. */
  fromUpdatedAt?: string;
  /** Exclusive upper bound. */
  toUpdatedAt?: string;
  limit: number;
  offset: number;
}

/** A prompt name with what its versions matching the filter have (one entry of the GET /v2/prompts list). */
export interface PromptSummary {
  name: string;
  type: PromptType;
  versions: number[];
  labels: string[];
  tags: string[];
  lastUpdatedAt: string;
  lastConfig: Record<string, unknown>;
}

/** Names in order, each with its matching versions; the filters pick versions, a name with none is left out. */
export async function listPrompts(
  db: Queryable,
  projectId: string,
  f: PromptListFilter,
): Promise<{ data: PromptSummary[]; total: number }> {
  const { add, params, sql } = conditions('project_id = $1', projectId);
  if (f.name !== undefined) add((p) => `name = ${p}`, f.name);
  if (f.label !== undefined) add((p) => `labels @> ARRAY[${p}]::text[]`, f.label);
  if (f.tag !== undefined) add((p) => `tags @> ARRAY[${p}]::text[]`, f.tag);
  if (f.fromUpdatedAt !== undefined) add((p) => `updated_at >= ${p}::timestamptz`, f.fromUpdatedAt);
  if (f.toUpdatedAt !== undefined) add((p) => `updated_at < ${p}::timestamptz`, f.toUpdatedAt);
  const condition = sql();
  const total = await db.query<{ n: unknown }>(
    `SELECT count(DISTINCT name) AS n FROM prompts WHERE ${condition}`,
    params,
  );
  const names = await db.query<{ name: string }>(
    `SELECT name FROM prompts WHERE ${condition} GROUP BY name ORDER BY name LIMIT ${Number(f.limit)} OFFSET ${Number(f.offset)}`,
    params,
  );
  const page = names.rows.map((r) => r.name);
  if (page.length === 0) return { data: [], total: num(total.rows[0].n) };
  const rows = await db.query(
    `SELECT * FROM prompts WHERE ${condition} AND name = ANY($${params.length + 1}::text[]) ORDER BY name, version`,
    [...params, page],
  );
  const byName = new Map<string, StoredPrompt[]>();
  for (const p of rows.rows.map(toPrompt)) byName.set(p.name, [...(byName.get(p.name) ?? []), p]);
  const data = page.map((name) => {
    const versions = byName.get(name)!;
    const newest = versions.at(-1)!;
    return {
      name,
      type: newest.type,
      versions: versions.map((p) => p.version),
      labels: unique(versions.flatMap((p) => p.labels)),
      tags: unique(versions.flatMap((p) => p.tags)),
      lastUpdatedAt: versions
        .map((p) => p.updatedAt)
        .sort()
        .at(-1)!,
      lastConfig: newest.config,
    };
  });
  return { data, total: num(total.rows[0].n) };
}

/** Every version of a name, oldest first (empty when the name is unknown). */
export async function listPromptVersions(db: Queryable, projectId: string, name: string): Promise<StoredPrompt[]> {
  const r = await db.query('SELECT * FROM prompts WHERE project_id = $1 AND name = $2 ORDER BY version', [
    projectId,
    name,
  ]);
  return r.rows.map(toPrompt);
}
