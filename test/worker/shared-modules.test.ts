/**
 * The workflow bundle's preload: the zod modules workflow code imports, and every module of
 * `contracts` and `policy`, are loaded by the preload, so a worker evaluates them once and every run
 * shares them instead of evaluating its own copy.
 * Read from the bundle the jest global setup built with the project's bundler options.
 */
import fs from 'node:fs';
import { TEST_ENV } from '../kit/env';

/** The module ids `code` requires, and those of a folder it requires whole (`require.context`: a map from each module's path in the folder to its id). */
const requiredIds = (code: string): string[] => [
  ...[...code.matchAll(/__webpack_require__\((?:\/\*[^*]*\*\/\s*)*"([^"]+)"\)/g)].map((m) => m[1]),
  ...[...code.matchAll(/^\t"\.\/[^"]+": "([^"]+)",?$/gm)].map((m) => m[1]),
];

/** The bundle's modules: each id with the ids its body requires. */
function bundleModules(code: string): Map<string, string[]> {
  const modules = new Map<string, string[]>();
  const starts = [...code.matchAll(/^\/\*\*\*\/ "([^"]+)"$/gm)];
  starts.forEach((start, i) => {
    modules.set(start[1], requiredIds(code.slice(start.index, starts[i + 1]?.index ?? code.length)));
  });
  return modules;
}

/** Every module `from` loads, itself included. */
function loadedBy(modules: Map<string, string[]>, from: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...from];
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    if (seen.has(id)) continue;
    seen.add(id);
    queue.push(...(modules.get(id) ?? []));
  }
  return seen;
}

describe('the workflow bundle', () => {
  const code = fs.readFileSync(process.env[TEST_ENV.bundlePath] as string, 'utf8');
  const modules = bundleModules(code);

  it('preloads every zod module that workflow code imports', () => {
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code)?.[1] ?? '';
    const preloaded = requiredIds(preload);
    expect(preloaded).toEqual(['./src/workflows/shared-modules.ts']);
    const shared = loadedBy(modules, preloaded);
    const importedByWorkflowCode = [...modules]
      .filter(([id]) => id.startsWith('./src/'))
      .flatMap(([, required]) => required.filter((id) => id.startsWith('./node_modules/zod/')));
    expect(importedByWorkflowCode.length).toBeGreaterThan(0);
    expect(importedByWorkflowCode.filter((id) => !shared.has(id))).toEqual([]);
  });

  it('preloads every module of contracts and policy, and nothing of the workflows but the preload', () => {
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code)?.[1] ?? '';
    const shared = loadedBy(modules, requiredIds(preload));
    const layers = [...modules.keys()].filter((id) => /^\.\/src\/(contracts|policy)\//.test(id));
    expect(layers.length).toBeGreaterThan(50);
    expect(layers.filter((id) => !shared.has(id))).toEqual([]);
    expect([...shared].filter((id) => id.startsWith('./src/workflows/'))).toEqual([
      './src/workflows/shared-modules.ts',
    ]);
  });
});
