// The URL of a module relative to the caller's, as the running code has it: sources run as .ts (type stripping:
// tests, bench), the build runs the compiled .js. Thread entries and worker tasks are loaded by URL, so they need it.

/** `path` without its extension, resolved against `from` (the caller's `import.meta.url`). */
export function moduleBeside(from: string, path: string): URL {
  return new URL(`${path}${from.endsWith('.ts') ? '.ts' : '.js'}`, from);
}
