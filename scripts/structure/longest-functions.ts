// The longest functions of the graph's modules, by lines from signature to closing brace.
import ts from 'typescript';
import type { SourceGraph } from './source-graph.ts';

export interface FunctionSpan {
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

export function longestFunctions(graph: SourceGraph, top: number): FunctionSpan[] {
  const spans: FunctionSpan[] = [];
  for (const [file, source] of graph.parsed) {
    const walk = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
        spans.push({ name: nameOf(node), where: `${file}:${start}`, lines: end - start + 1 });
      }
      ts.forEachChild(node, walk);
    };
    walk(source);
  }
  return spans.sort((a, b) => b.lines - a.lines).slice(0, top);
}
