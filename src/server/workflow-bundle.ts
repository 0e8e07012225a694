import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { PRELOADED_WORKFLOW_MODULES, WORKFLOW_INTERCEPTOR_MODULES } from '../common/preloaded-modules';

/** Options for {@link buildWorkflowBundle}. */
export interface BuildBundleOptions {
  /** Module whose exported functions become the registered workflows (`.ts` or `.js`). */
  workflowsPath: string;
  /** Where to write the bundle. */
  outFile: string;
}

/**
 * Bundles workflow code ahead of time into one file a worker loads with
 * `workflowBundle: { codePath }`, so workers do not re-bundle at every start.
 * The file is written atomically: concurrent readers never see half a bundle.
 */
export async function buildWorkflowBundle(options: BuildBundleOptions): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: path.resolve(options.workflowsPath),
    preloadModules: [...PRELOADED_WORKFLOW_MODULES],
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
    logger: new DefaultLogger('WARN'),
  });
  writeAtomically(options.outFile, trimSourceMap(code, path.resolve(options.outFile)));
  return options.outFile;
}

/** How a bundle's inline source map starts; its base64 text follows the first `base64,` after it. */
const INLINE_SOURCE_MAP = '//# sourceMappingURL=data:';

/** A bundle's inline source map, and where its base64 text starts in the code; none without one. */
export function inlineSourceMap(code: string): { map: Record<string, unknown>; start: number } | undefined {
  const directive = code.lastIndexOf(INLINE_SOURCE_MAP);
  const base64 = directive < 0 ? -1 : code.indexOf('base64,', directive);
  if (base64 < 0) return undefined;
  const start = base64 + 'base64,'.length;
  return { map: JSON.parse(Buffer.from(code.slice(start).trim(), 'base64').toString()), start };
}

/**
 * The bundle with its inline source map cut to what stack traces read: the mappings and the
 * sources' names, without the sources' text (`sourcesContent`, about three quarters of the map),
 * and `file` naming where the bundle is written, so that a worker loading it from there takes the
 * map as it is instead of rewriting it. Every worker start and replay reads the map and copies it to
 * the workflow thread: without the text, a worker starts about a quarter sooner. Stack traces still
 * name the source file, line and column; only a worker that sends sources with its stack traces
 * (the SDK's `showStackTraceSources`) would have none to send.
 */
function trimSourceMap(code: string, file: string): string {
  const inline = inlineSourceMap(code);
  if (!inline) return code;
  const { sourcesContent: _text, ...map } = inline.map;
  return `${code.slice(0, inline.start)}${Buffer.from(JSON.stringify({ ...map, file })).toString('base64')}\n`;
}

/**
 * Returns a cached bundle of `workflowsPath` when the sources under `sourceRoots` (and the lock file)
 * have not changed since it was built, otherwise builds it. Used by the test kit.
 */
export async function cachedWorkflowBundle(options: {
  workflowsPath: string;
  sourceRoots: string[];
  cacheDir: string;
  extraKeys?: string[];
}): Promise<string> {
  // This module is among the sources: how it builds a bundle is part of what the bundle is.
  const key = hashSources(
    [...options.sourceRoots, __filename],
    [
      path.resolve(options.workflowsPath),
      `preload:${PRELOADED_WORKFLOW_MODULES.join(',')}`,
      `interceptors:${WORKFLOW_INTERCEPTOR_MODULES.join(',')}`,
      ...(options.extraKeys ?? []),
    ],
  );
  const outFile = path.join(options.cacheDir, `workflow-bundle-${key.slice(0, 16)}.js`);
  if (fs.existsSync(outFile)) {
    const now = new Date();
    fs.utimesSync(outFile, now, now);
    return outFile;
  }
  pruneStaleBundles(options.cacheDir);
  return buildWorkflowBundle({ workflowsPath: options.workflowsPath, outFile });
}

/** Bundles unused for a day go; a run still holding an older path has long finished by then. */
function pruneStaleBundles(cacheDir: string): void {
  if (!fs.existsSync(cacheDir)) return;
  const cutoff = Date.now() - 24 * 3600_000;
  for (const name of fs.readdirSync(cacheDir)) {
    if (!/^workflow-bundle-[0-9a-f]+\.js$/.test(name)) continue;
    const file = path.join(cacheDir, name);
    try {
      if (fs.statSync(file).mtimeMs < cutoff) fs.rmSync(file);
    } catch {
      // Another run pruned it first.
    }
  }
}

function hashSources(roots: string[], extraKeys: string[]): string {
  const hash = crypto.createHash('sha256');
  for (const key of extraKeys) hash.update(`key:${key}\n`);
  for (const file of roots.flatMap((root) => listFiles(root)))
    hash.update(`file:${file}\n`).update(fs.readFileSync(file));
  return hash.digest('hex');
}

function listFiles(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  if (fs.statSync(root).isFile()) return [root];
  const files: string[] = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory()) files.push(...listFiles(full));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

function writeAtomically(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${crypto.randomUUID()}.tmp`;
  fs.writeFileSync(temp, content);
  fs.renameSync(temp, file);
}
