/** The chaos worker (`worker-main.ts`) as an OS process the suite can SIGKILL and start again. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ownChild } from '../children';
import { REPO_ROOT } from '../env';

export interface WorkerHost {
  /** Starts a worker process; resolves once it polls. */
  start(): Promise<void>;
  /** SIGKILL: nothing is drained; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM, for the end of the scenario. */
  stop(): Promise<void>;
}

/** How long a new worker process may take to poll. */
const READY_TIMEOUT_MS = 60_000;

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));

export function workerHost(env: NodeJS.ProcessEnv): WorkerHost {
  let child: ChildProcess | undefined;
  const entry = path.join(__dirname, 'worker-main.ts');
  const signal = async (sig: NodeJS.Signals): Promise<void> => {
    const current = child;
    child = undefined;
    if (!current) return;
    current.kill(sig);
    await exited(current);
  };
  return {
    async start() {
      if (child) throw new Error('a chaos worker is already running');
      const started = ownChild(
        spawn(process.execPath, ['-r', path.join(REPO_ROOT, 'scripts', 'register-ts.js'), entry], {
          cwd: REPO_ROOT,
          env: { ...process.env, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      child = started;
      await new Promise<void>((resolve, reject) => {
        let seen = '';
        const timer = setTimeout(
          () => reject(new Error(`the chaos worker did not poll within ${READY_TIMEOUT_MS} ms: ${seen}`)),
          READY_TIMEOUT_MS,
        );
        const onData = (chunk: Buffer): void => {
          seen += chunk.toString();
          if (seen.includes('chaos worker polling')) {
            clearTimeout(timer);
            resolve();
          }
        };
        started.stdout?.on('data', onData);
        started.stderr?.on('data', onData);
        started.once('exit', (code, sig) => {
          clearTimeout(timer);
          reject(new Error(`the chaos worker exited (${code ?? sig}) before polling: ${seen}`));
        });
      });
    },
    kill: () => signal('SIGKILL'),
    stop: () => signal('SIGTERM'),
  };
}
