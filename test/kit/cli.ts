import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ownChild } from './children';
import { REPO_ROOT } from './env';

/** What a finished CLI invocation printed. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Replaces the environment entirely when `replaceEnv` is true; otherwise extends it. */
  env?: NodeJS.ProcessEnv;
  replaceEnv?: boolean;
  cwd?: string;
  /** Written to the CLI's stdin, which is then closed; without it stdin is empty. */
  input?: string;
  /** The program to run instead of the CLI from source (./cli-main.ts), e.g. an example's own command line. */
  entry?: string;
}

/** `node` with the TypeScript hook, running the CLI from source (./cli-main.ts) or `entry`. */
function cliCommand(args: string[], entry = path.join(__dirname, 'cli-main.ts')): [string, string[]] {
  return [process.execPath, ['-r', path.join(REPO_ROOT, 'scripts', 'register-ts.js'), entry, ...args]];
}

function cliEnv(options: CliOptions): NodeJS.ProcessEnv {
  return options.replaceEnv ? { ...options.env } : { ...process.env, ...options.env };
}

/** Starts the CLI as a new process, as a user would from a shell. */
export function spawnCli(args: string[], options: CliOptions = {}): ChildProcess {
  const [command, argv] = cliCommand(args, options.entry);
  const child = ownChild(
    spawn(command, argv, {
      cwd: options.cwd ?? REPO_ROOT,
      env: cliEnv(options),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    }),
  );
  if (options.input !== undefined) child.stdin?.end(options.input);
  return child;
}

/** Runs the CLI to completion and collects its output. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const child = spawnCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Resolves with everything printed so far once stdout (or `stream`) matches `pattern`; rejects if the
 * process exits first.
 */
export function waitForOutput(
  child: ChildProcess,
  pattern: RegExp,
  stream: 'stdout' | 'stderr' = 'stdout',
): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    let errors = '';
    const watched = stream === 'stdout' ? child.stdout : child.stderr;
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        watched?.off('data', onData);
        resolve(seen);
      }
    };
    watched?.on('data', onData);
    if (stream === 'stdout') child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.once('exit', (code) =>
      reject(new Error(`process exited (${code}) before printing ${pattern}: ${seen}${errors}`)),
    );
  });
}

/** Sends `signal` and resolves with the exit code. */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}
