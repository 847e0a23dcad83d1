// Which plugins of a config hook every chunk of a stream: their definitions' setup returns `onEvent` (edits chunks)
// or `observeEvent` (reads them). Read from the source, so a hook a plugin returns only under some config (guardrails
// with a policy that checks answers) counts as present.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { parse } from 'yaml';
import type { SourceGraph } from './source-graph.ts';
import { unitOf } from './units.ts';

const CHUNK_HOOKS = new Set(['onEvent', 'observeEvent']);

export interface ChunkHooksReport {
  config: string;
  /** The config's plugins, in order, by their `use`. */
  plugins: string[];
  /** The ones whose definition has a per-chunk hook, with the hook's name. */
  withChunkHook: { plugin: string; hook: string; where: string }[];
}

/** Object members named like a per-chunk hook in a module. */
function chunkHooksIn(source: ts.SourceFile): { hook: string; line: number }[] {
  const found: { hook: string; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isMethodDeclaration(node) || ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) &&
      ts.isObjectLiteralExpression(node.parent) &&
      ts.isIdentifier(node.name) &&
      CHUNK_HOOKS.has(node.name.text)
    )
      found.push({ hook: node.name.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A config's `use`: a built-in name is the folder plugins/<name>/, a local path the module it names. */
function unitOfPlugin(use: string): string {
  return use.startsWith('.') ? unitOf(join(use).split('\\').join('/')) : `plugins/${use}/`;
}

export function chunkHooks(graph: SourceGraph, config = 'gateway.yaml'): ChunkHooksReport {
  const path = resolve(graph.root, config);
  const plugins: string[] = existsSync(path)
    ? ((parse(readFileSync(path, 'utf8')) as { plugins?: { use: string }[] }).plugins ?? []).map((p) => p.use)
    : [];
  const withChunkHook = plugins.flatMap((plugin) => {
    const unit = unitOfPlugin(plugin);
    return graph.files
      .filter((f) => unitOf(f) === unit)
      .flatMap((f) =>
        chunkHooksIn(graph.parsed.get(f)!).map((h) => ({ plugin, hook: h.hook, where: `${f}:${h.line}` })),
      );
  });
  return { config, plugins, withChunkHook };
}
