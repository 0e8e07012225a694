/** The project's worker as a separate process (`durable-agents worker` from source), as a second host would run it. */
import type { ChildProcess } from 'node:child_process';
import { spawnCli, stopProcess, waitForOutput } from './cli';
import { testConnection, workflowBundle } from './temporal';

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it printed (stdout and stderr). */
  output(): string;
  /** SIGKILL: the host is gone, nothing is drained. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a worker on `taskQueue` in `cwd` with `env` added; resolves once it polls. */
export async function startWorkerProcess(options: {
  taskQueue: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** More arguments of `worker` (`--metrics-port 9464`). */
  args?: string[];
}): Promise<WorkerProcess> {
  const { address, namespace } = await testConnection();
  const child = spawnCli(['worker', '--task-queue', options.taskQueue, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      DURABLE_AGENTS_WORKFLOW_BUNDLE: workflowBundle().codePath,
      DURABLE_AGENTS_LOG_LEVEL: 'WARN',
      ...options.env,
    },
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await waitForOutput(child, /Worker polling/);
  return {
    child,
    output: () => output,
    kill: async () => void (await stopProcess(child, 'SIGKILL')),
    stop: async () => void (await stopProcess(child, 'SIGTERM')),
  };
}
