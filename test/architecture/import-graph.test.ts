/**
 * The import graph of src/, built with the TypeScript compiler API: type-only imports and
 * re-exports count. It must have no circle, and every import between layers must point down
 * (the same table the lint rules use, scripts/layers.js).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../kit/env';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { LAYERS, ENTRIES, FEATURES } = require('../../scripts/layers.js') as {
  LAYERS: Record<string, string[]>;
  ENTRIES: Record<string, string>;
  FEATURES: { core: string; features: string };
};

const SRC = path.join(REPO_ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function resolve(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
}

/** Every relative module a file imports or re-exports, type-only ones included. */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const targets: string[] = [];
  for (const statement of source.statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier
        ? (statement.moduleSpecifier as ts.StringLiteral).text
        : undefined;
    const target = specifier && resolve(file, specifier);
    if (target) targets.push(target);
  }
  return targets;
}

function importGraph(files: string[]): Map<string, string[]> {
  return new Map(files.map((file) => [file, importsOf(file)]));
}

/** Strongly connected components with more than one file (or a file importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexes = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indexes.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexes.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indexes.get(next)!));
    }
    if (low.get(node) === indexes.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component);
    }
  };
  for (const node of graph.keys()) if (!indexes.has(node)) visit(node);
  return found;
}

/** A file's layer: its folder's, or, for an entry file at the top of src/, the layer it belongs to. */
const layerOf = (file: string): string | undefined => {
  const first = path.relative(SRC, file).split(path.sep)[0];
  return first in LAYERS ? first : ENTRIES[first];
};

const relative = (file: string) => path.relative(REPO_ROOT, file);

describe('import graph of src', () => {
  const graph = importGraph(sourceFiles(SRC));

  it('has no circle, type-only imports included', () => {
    expect(circles(graph).map((component) => component.map(relative).sort())).toEqual([]);
  });

  it('has only downward arrows between layers', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const from = layerOf(file);
      if (!from) continue;
      for (const target of targets) {
        const to = layerOf(target);
        if (to && to !== from && !LAYERS[from].includes(to)) upward.push(`${relative(file)} -> ${relative(target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('gives every entry file at the top of src/ a layer', () => {
    const entries = fs.readdirSync(SRC).filter((name) => name.endsWith('.ts'));
    expect(entries.filter((name) => ENTRIES[name] === undefined)).toEqual([]);
  });

  it('has the core of the workflows import its features only through their one list', () => {
    const core = path.join(SRC, FEATURES.core) + path.sep;
    const features = path.join(SRC, FEATURES.features) + path.sep;
    const list = path.join(SRC, FEATURES.features, 'index.ts');
    const named = [...graph].flatMap(([file, targets]) =>
      file.startsWith(core)
        ? targets.filter((t) => t.startsWith(features) && t !== list).map((t) => `${relative(file)} -> ${relative(t)}`)
        : [],
    );
    expect(named).toEqual([]);
    expect([...graph].some(([file, targets]) => file.startsWith(core) && targets.includes(list))).toBe(true);
  });

  it('finds a circle made of type-only imports', () => {
    const a = path.join(SRC, 'a.ts');
    const b = path.join(SRC, 'b.ts');
    const c = path.join(SRC, 'c.ts');
    expect(
      circles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, [a]],
        ]),
      ).map((x) => x.length),
    ).toEqual([3]);
  });
});
