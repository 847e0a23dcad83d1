// Which model prices an observation (docs/public-api.md "Models — /api/public/models", Generation cost): the project's
// models first, newest startDate first (nulls last, then newest created), then the built-ins, most specific name first;
// the first whose pattern matches the observation's model wins.
import { BUILTIN_MODELS } from './builtin-models.ts';
import { compilePattern, type Pattern } from './match-pattern.ts';
import type { ModelDefinition } from '../store/repos/models.ts';

export type ModelMatcher = (model: string) => ModelDefinition | undefined;

/** Longer observation model names match no model: patterns are not run over unbounded text. */
export const MAX_MATCHED_MODEL_LENGTH = 1_000;
/** Model names whose match a matcher remembers. */
const REMEMBERED_ANSWERS = 1_000;

const newestFirst = (a: string | null, b: string | null) =>
  a === b ? 0 : a === null ? 1 : b === null ? -1 : Date.parse(b) - Date.parse(a);

interface CompiledModel {
  model: ModelDefinition;
  re: Pattern;
}

function compiled(models: readonly ModelDefinition[]): CompiledModel[] {
  return models.flatMap((m) => {
    try {
      return [{ model: m, re: compilePattern(m.matchPattern) }];
    } catch {
      return []; // refused at creation; a row written another way must not stop ingestion
    }
  });
}

/**
 * The built-ins never change: compiled once, not at every project matcher rebuild. Longer names first, so that a
 * snapshot with a price of its own (`gpt-3.5-turbo-1106`) wins over its family's pattern (`gpt-3.5-turbo`).
 */
const COMPILED_BUILTINS = compiled([...BUILTIN_MODELS].sort((a, b) => b.modelName.length - a.modelName.length));

export function modelMatcher(projectModels: readonly ModelDefinition[]): ModelMatcher {
  const ordered = [...projectModels].sort(
    (a, b) => newestFirst(a.startDate, b.startDate) || newestFirst(a.createdAt, b.createdAt),
  );
  const candidates = [...compiled(ordered), ...COMPILED_BUILTINS];
  // A project sends few distinct model names, and running every pattern per generation costs ~10 µs: answers are
  // kept for the matcher's life (it is rebuilt when the project's models change), up to a bound.
  const answers = new Map<string, ModelDefinition | undefined>();
  return (name) => {
    if (name.length > MAX_MATCHED_MODEL_LENGTH) return undefined;
    if (answers.has(name)) return answers.get(name);
    const model = candidates.find((c) => c.re.test(name))?.model;
    if (answers.size >= REMEMBERED_ANSWERS) answers.clear();
    answers.set(name, model);
    return model;
  };
}
