// The repository's TypeScript modules and the imports between them, read from the syntax tree (no type checking).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * How one module reaches another: `value` (an import or re-export that loads it), `type` (`import type`, or every
 * name marked `type`; erased at run time) or `lazy` (an `import('...')` expression, loaded when it runs).
 */
export type ImportKind = 'value' | 'type' | 'lazy';

export interface ModuleImport {
  /** Paths relative to the root, with `/` separators. */
  from: string;
  to: string;
  kind: ImportKind;
}

export interface SourceGraph {
  root: string;
  /** Every module read, relative to the root. */
  files: string[];
  parsed: Map<string, ts.SourceFile>;
  /** Imports that land on a module of the graph, one per importing module, imported module and kind. */
  imports: ModuleImport[];
  /** Imports by package name (`svc/plugin`, `node:fs`), one per importing module and specifier. */
  packageImports: { from: string; specifier: string }[];
}

/** The dashboard's front end runs in the browser and is built apart; its modules form their own graph. */
const SKIP = ['admin/dashboard/'];

function sourceFiles(root: string, dir: string): string[] {
  const path = join(root, dir);
  if (!existsSync(path)) return [];
  return readdirSync(path).flatMap((name) => {
    const child = `${dir}/${name}`;
    if (statSync(join(root, child)).isDirectory()) return sourceFiles(root, child);
    return child.endsWith('.ts') && !child.endsWith('.d.ts') ? [child] : [];
  });
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const clause = node.exportClause;
    return !!clause && ts.isNamedExports(clause) && clause.elements.every((e) => e.isTypeOnly);
  }
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return !clause.name && !!named && ts.isNamedImports(named) && named.elements.every((e) => e.isTypeOnly);
}

/** Every module specifier of a file with how it is used: statements at the top, `import()` anywhere. */
function specifiersOf(source: ts.SourceFile): { text: string; kind: ImportKind }[] {
  const found: { text: string; kind: ImportKind }[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier))
        found.push({ text: node.moduleSpecifier.text, kind: isTypeOnly(node) ? 'type' : 'value' });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push({ text: arg.text, kind: 'lazy' });
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal))
        found.push({ text: arg.literal.text, kind: 'type' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Reads the modules under the given top folders of `root` (relative paths such as `src` or `examples/plugins`). */
export function readSourceGraph(root: string, folders: string[]): SourceGraph {
  const files = folders
    .flatMap((f) => sourceFiles(root, f))
    .filter((f) => !SKIP.some((s) => f.startsWith(s)))
    .sort();
  const known = new Set(files);
  const parsed = new Map(
    files.map((f) => [f, ts.createSourceFile(f, readFileSync(join(root, f), 'utf8'), ts.ScriptTarget.Latest, true)]),
  );
  const imports = new Map<string, ModuleImport>();
  const packageImports = new Map<string, { from: string; specifier: string }>();
  for (const [file, source] of parsed) {
    for (const { text, kind } of specifiersOf(source)) {
      if (!text.startsWith('.')) {
        packageImports.set(`${file} ${text}`, { from: file, specifier: text });
        continue;
      }
      const to = relative(root, resolve(root, dirname(file), text))
        .split('\\')
        .join('/');
      if (known.has(to) && to !== file) imports.set(`${file} ${to} ${kind}`, { from: file, to, kind });
    }
  }
  return { root, files, parsed, imports: [...imports.values()], packageImports: [...packageImports.values()] };
}
