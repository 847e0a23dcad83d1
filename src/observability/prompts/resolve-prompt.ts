// Prompt composition (Langfuse's PromptService graph): a prompt's references are replaced by the text prompts they
// name, recursively, at most MAX_PROMPT_NESTING_DEPTH levels deep, refusing cycles (a prompt met again on its own
// path, or another version of the root's name), references that find no prompt, and references to chat prompts.
import type { StoredPrompt } from '../../platform/store/repos/prompts.ts';
import type { ChatEntry } from '../../platform/store/repos/chat-entry.ts';
import {
  describeReference,
  referenceKey,
  referencesIn,
  replaceReferences,
  type PromptReference,
} from '../../platform/store/repos/prompt-references.ts';

export const MAX_PROMPT_NESTING_DEPTH = 5;

/** Why a prompt cannot be composed; the message is Langfuse's. */
export class PromptCompositionError extends Error {}

type PromptNode = { id: string; name: string; version: number };

/** Langfuse's resolutionGraph: the root and, per prompt id, the prompts its references resolved to. */
export interface ResolutionGraph {
  root: PromptNode;
  dependencies: Record<string, PromptNode[]>;
}

/** The prompt to compose: stored, or about to be created (no id or version yet). */
export type ComposedPrompt = Pick<StoredPrompt, 'name' | 'prompt'> & { id?: string; version?: number };

export type FindPrompt = (ref: PromptReference) => Promise<StoredPrompt | undefined>;

/** The prompt with its references resolved and the graph of what they resolved to (null when it has none). */
export async function resolvePrompt(
  root: ComposedPrompt,
  find: FindPrompt,
): Promise<{ prompt: string | ChatEntry[]; graph: ResolutionGraph | null }> {
  const dependencies: Record<string, PromptNode[]> = {};
  const onPath = new Set<string>();

  const resolve = async (current: ComposedPrompt, level: number): Promise<string | ChatEntry[]> => {
    if (level >= MAX_PROMPT_NESTING_DEPTH)
      throw new PromptCompositionError(`Maximum nesting depth exceeded (${MAX_PROMPT_NESTING_DEPTH})`);
    const isRoot = level === 0;
    if (
      (current.id !== undefined && onPath.has(current.id)) ||
      (!isRoot && current.name === root.name && current.id !== root.id)
    ) {
      throw new PromptCompositionError(
        `Circular dependency detected involving prompt '${current.name}' version ${current.version}`,
      );
    }
    const refs = referencesIn(current.prompt);
    if (refs.length === 0) return current.prompt;
    if (current.id !== undefined) onPath.add(current.id);
    const resolved = new Map<string, string>();
    for (const ref of refs) {
      const dependency = await find(ref);
      if (!dependency) throw new PromptCompositionError(`Prompt dependency not found: ${describeReference(ref)}`);
      if (dependency.type !== 'text')
        throw new PromptCompositionError(`Prompt dependency is not a text prompt: ${describeReference(ref)}`);
      (dependencies[current.id ?? ''] ??= []).push({
        id: dependency.id,
        name: dependency.name,
        version: dependency.version,
      });
      resolved.set(referenceKey(ref), (await resolve(dependency, level + 1)) as string);
    }
    if (current.id !== undefined) onPath.delete(current.id);
    return replaceReferences(current.prompt, (ref) => resolved.get(referenceKey(ref)));
  };

  const prompt = await resolve(root, 0);
  const hasDependencies = Object.keys(dependencies).length > 0;
  return {
    prompt,
    graph:
      hasDependencies && root.id !== undefined
        ? { root: { id: root.id, name: root.name, version: root.version! }, dependencies }
        : null,
  };
}
