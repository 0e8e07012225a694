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
  writeAtomically(options.outFile, code);
  return options.outFile;
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
  const key = hashSources(options.sourceRoots, [
    path.resolve(options.workflowsPath),
    `preload:${PRELOADED_WORKFLOW_MODULES.join(',')}`,
    `interceptors:${WORKFLOW_INTERCEPTOR_MODULES.join(',')}`,
    ...(options.extraKeys ?? []),
  ]);
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
function pruneStaleBundles(cacheDir: string, maxAgeMs = 24 * 3600_000): void {
  if (!fs.existsSync(cacheDir)) return;
  const cutoff = Date.now() - maxAgeMs;
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
  for (const root of roots) {
    for (const file of listFiles(root)) {
      hash.update(`file:${file}\n`);
      hash.update(fs.readFileSync(file));
    }
  }
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
