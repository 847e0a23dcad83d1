// An ingested environment, normalised as Langfuse does: lower-cased, leading `langfuse`, `langfuse-`, `langfuse_`
// prefixes stripped, at most 40 characters of [a-z0-9-_]; anything else, or nothing, is `default`.
export function normalizeEnvironment(value: unknown): string {
  if (typeof value !== 'string') return 'default';
  let env = value.toLowerCase();
  for (let prev = ''; prev !== env;) {
    prev = env;
    env = env.replace(/^langfuse[-_]?/, '');
  }
  env = env.slice(0, 40);
  return /^[a-z0-9_-]+$/.test(env) ? env : 'default';
}
