// `${VAR}` and `${VAR:-default}` in YAML scalar values, resolved from an injected environment.

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type Env = Readonly<Record<string, string | undefined>>;

export function hasReference(text: string): boolean {
  return text.includes('${');
}

/**
 * Replaces every reference; an unset or empty variable without a default becomes "", and its name is added to
 * `unset` (so a value found invalid can say why).
 */
export function interpolate(text: string, env: Env, unset: string[] = []): string {
  return text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback === undefined) unset.push(name);
    return fallback ?? '';
  });
}
