// The structure of the service's code, as evidence anyone can rerun: import cycles among src/, admin/ and plugins/
// (strongly connected groups of files, type-only imports included, since they tie the modules together for a reader
// as much as value imports do) and the longest functions.
//
//   node scripts/structure-report.ts [--top 15] [--json]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
const FOLDERS = ['src', 'admin', 'plugins'];
/** The dashboard's front end runs in the browser and is built apart; its modules form their own graph. */
const SKIP = [join('admin', 'dashboard') + '/'];

const { values } = parseArgs({
  options: { top: { type: 'string', default: '15' }, json: { type: 'boolean', default: false } },
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const files = FOLDERS.flatMap((f) => sourceFiles(join(ROOT, f))).filter(
  (f) => !SKIP.some((s) => relative(ROOT, f).startsWith(s)),
);
const known = new Set(files);
const parsed = new Map(
  files.map((f) => [f, ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true)]),
);

/** Relative imports and re-exports of a file that land on another file of the graph. */
function importsOf(source: ts.SourceFile): string[] {
  const out = new Set<string>();
  for (const statement of source.statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    const target = resolve(dirname(source.fileName), specifier.text);
    if (known.has(target)) out.add(target);
  }
  return [...out];
}

const edges = new Map(files.map((f) => [f, importsOf(parsed.get(f)!)]));

/** Tarjan's strongly connected components; the ones of two or more files are the import cycles. */
function cycles(): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)!) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.map((f) => relative(ROOT, f)).sort());
    }
  };
  for (const f of files) if (!indexOf.has(f)) visit(f);
  return groups.sort((a, b) => b.length - a.length);
}

interface FunctionSpan {
  name: string;
  where: string;
  lines: number;
}

/** A name for a function node: its own, or the variable, property or method it is assigned to. */
function nameOf(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (
    named.name &&
    (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name))
  )
    return named.name.text;
  const parent = node.parent;
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    ts.isIdentifier(parent.name)
  )
    return parent.name.text;
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

function longestFunctions(top: number): FunctionSpan[] {
  const spans: FunctionSpan[] = [];
  for (const source of parsed.values()) {
    const walk = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
        spans.push({
          name: nameOf(node),
          where: `${relative(ROOT, source.fileName)}:${start}`,
          lines: end - start + 1,
        });
      }
      ts.forEachChild(node, walk);
    };
    walk(source);
  }
  return spans.sort((a, b) => b.lines - a.lines).slice(0, top);
}

const report = { files: files.length, cycles: cycles(), longestFunctions: longestFunctions(Number(values.top)) };
if (values.json) console.log(JSON.stringify(report, null, 2));
else {
  console.log(`${report.files} files in ${FOLDERS.join(', ')} (the dashboard front end apart)`);
  console.log(
    `\nimport cycles: ${report.cycles.length}${report.cycles.length ? ` (files in them: ${report.cycles.flat().length})` : ''}`,
  );
  for (const group of report.cycles) console.log(`  ${group.length} files: ${group.join(', ')}`);
  console.log(`\nlongest functions:`);
  for (const f of report.longestFunctions) console.log(`  ${String(f.lines).padStart(4)} lines  ${f.name}  ${f.where}`);
}
