// The documentation stands alone: every markdown link and every backticked repository path in README.md, docs/**, the
// READMEs of src/'s bands and the SDK READMEs resolves inside this repository (a link's #anchor to a heading of its
// page), and no page points at the design files the repository does not ship. The gateway's error table in
// docs/api.md names every code the gateway has, with its status.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import t from 'tap';
import { GATEWAY_ERROR_STATUS } from '../../src/platform/errors/codes.ts';

const ROOT = resolve(import.meta.dirname, '../..');

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownUnder(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

const PAGES = [
  'README.md',
  ...markdownUnder('docs'),
  // Each band of src/ has a README saying what lives there and what it may import.
  ...readdirSync(join(ROOT, 'src'))
    .map((band) => join('src', band, 'README.md'))
    .filter((p) => existsSync(join(ROOT, p))),
  ...readdirSync(join(ROOT, 'sdks'))
    .map((sdk) => join('sdks', sdk, 'README.md'))
    .filter((p) => existsSync(join(ROOT, p))),
];

/** Text outside fenced code blocks, line numbers kept. */
const prose = (text: string) => {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
};

/** GitHub's heading anchors: lower case, punctuation but `-` and `_` dropped, spaces to `-`, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const insideRepo = (abs: string) => abs === ROOT || abs.startsWith(ROOT + sep);

/** `a/{b,c}.ts` → `a/b.ts`, `a/c.ts`. */
const expandBraces = (p: string): string[] => {
  const m = /\{([^{}]*)\}/.exec(p);
  if (!m) return [p];
  return m[1]!.split(',').flatMap((alt) => expandBraces(p.slice(0, m.index) + alt + p.slice(m.index + m[0].length)));
};

/** Whether a path with `*` or `<placeholder>` segments matches at least one file or directory. */
function globExists(abs: string): boolean {
  const parts = relative(ROOT, abs).split(sep);
  const walk = (dir: string, i: number): boolean => {
    if (i === parts.length) return true;
    const part = parts[i]!;
    if (!/[*<]/.test(part)) return existsSync(join(dir, part)) && walk(join(dir, part), i + 1);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return false;
    const re = new RegExp(`^${part.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\*|<[^>]*>/g, '.*')}$`);
    return readdirSync(dir).some((name) => re.test(name) && walk(join(dir, name), i + 1));
  };
  return walk(ROOT, 0);
}

// Backticked paths that name something in the repository: they start with one of its top-level directories.
const REPO_PATH = /^(?:src|admin|docs|plugins|test|sdks|schemas|scripts|examples|bench|\.ci)\/[^\s`]*$/;
// Build output, installs and data made at run time: not in the repository by design.
const NOT_SHIPPED = /(^|\/)(dist|node_modules|data|target|\.venv|\.peers)(\/|$)/;
const FORBIDDEN = [
  /shared\//,
  /spec part/i,
  /\bthe spec\b/i,
  /\bspec's\b/i,
  /ARCHITECTURE\.md/,
  /service-interface/,
  /reference §/i,
];

for (const page of PAGES) {
  t.test(page, async (t) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const lines = prose(text);
    const problems: string[] = [];
    lines.forEach((line, i) => {
      const at = `${page}:${i + 1}`;
      for (const m of line.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [path = '', anchor] = target.split('#');
        const abs = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), decodeURIComponent(path));
        if (!insideRepo(abs)) problems.push(`${at}: link ${target} leaves the repository`);
        else if (!existsSync(abs)) problems.push(`${at}: link ${target} does not exist`);
        else if (anchor && abs.endsWith('.md') && !anchorsOf(readFileSync(abs, 'utf8')).has(anchor))
          problems.push(`${at}: link ${target}: no heading #${anchor} in ${relative(ROOT, abs)}`);
      }
      for (const m of line.matchAll(/`([^`\n]+)`/g)) {
        const token = m[1]!.trim().replace(/[:#].*$/, '');
        if (!REPO_PATH.test(token) || NOT_SHIPPED.test(token)) continue;
        // Repository-relative, or (in an SDK's README) relative to that SDK's directory.
        const bases = [ROOT, join(ROOT, dirname(page))];
        const found = expandBraces(token).every((p) => bases.some((b) => globExists(resolve(b, p))));
        if (!found) problems.push(`${at}: path \`${m[1]}\` is not in the repository`);
      }
      for (const re of FORBIDDEN)
        if (re.test(line)) problems.push(`${at}: refers to a document outside the repository (${re.source})`);
    });
    t.same(problems, [], 'every link and path resolves inside the repository');
  });
}

t.test('docs/api.md has a row for every gateway error code, with its status', async (t) => {
  const api = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
  for (const [code, status] of Object.entries(GATEWAY_ERROR_STATUS)) {
    const row =
      code === 'internal_error' ? /^\| 500 \| `null` \|/m : new RegExp(`^\\| ${status} \\| \`${code}\` \\|`, 'm');
    t.match(api, row, `${status} ${code}`);
  }
  t.match(api, /^\| 200, then an error event \| `upstream_stream_error` \|/m);
  t.match(api, /^\| the provider's \| the provider's, else `upstream_error` \|/m);
});

t.test('the checker itself: a broken link, a missing path and an outside reference are caught', async (t) => {
  t.notOk(existsSync(resolve(ROOT, 'docs', 'no-such-page.md')));
  t.notOk(globExists(resolve(ROOT, 'src/no-such-dir/*.ts')));
  t.ok(globExists(resolve(ROOT, 'src/platform/store/sql/*.sql')));
  t.ok(globExists(resolve(ROOT, 'plugins/<name>/README.md')));
  t.same(expandBraces('a/{b,c}.ts'), ['a/b.ts', 'a/c.ts']);
  t.ok(anchorsOf('## Caller context headers\n## Errors\n## Errors').has('errors-1'));
  t.ok(anchorsOf('## `/metrics` (admin port only)').has('metrics-admin-port-only'));
  t.ok(FORBIDDEN.some((re) => re.test('see spec part 7')));
  t.ok(FORBIDDEN.some((re) => re.test('as the ingestion rules say (reference §4)')));
});
