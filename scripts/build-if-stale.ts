// The build step of `npm install` (prepare), `npm start` and `npm test`: runs `npm run build` only when a source
// changed since the last build that succeeded (its stamp, dist/.build-stamp), so a fresh install starts at once and
// a failed build is tried again rather than started from.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const SOURCES = ['src', 'admin', 'plugins', 'schemas', 'examples', 'bench', 'tsconfig.json', 'package.json'];
const STAMP = 'dist/.build-stamp';

/** The newest modification time of a file or of any file under a folder. */
export function newestMtime(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/** True when no build succeeded yet or a source is newer than the last one that did. */
export function buildIsStale(root = ROOT): boolean {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return SOURCES.map((p) => join(root, p)).some((p) => existsSync(p) && newestMtime(p) > built);
}

if (import.meta.main && buildIsStale()) {
  // Stamped with the time the build started, so a source saved during the build makes the next one run.
  const started = new Date();
  try {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  } catch {
    // npm has printed the compiler's errors.
    process.exit(1);
  }
  writeFileSync(join(ROOT, STAMP), `${started.toISOString()}\n`);
  utimesSync(join(ROOT, STAMP), started, started);
}
