/**
 * Waiting for a run without waiting in silence: a notice within seconds when no worker polls the
 * run's task queue, one progress line redrawn in place on a terminal (quiet otherwise), and at
 * Ctrl-C the exact commands to watch, read or stop the run that goes on.
 */
import type { AgentClient } from '../client';
import { startWorkerHint } from '../client/client-errors';
import { EXIT } from './exit-codes';
import { hintPrefix, noteOf, type AgentCommandDeps } from './commands/agent-deps';

/** How often the worker check and the progress line are refreshed. */
const WORKER_CHECK_MS = 3_000;
const PROGRESS_MS = 1_000;
/** A state query for the progress line gives up after this long (the line then shows time only). */
const PROGRESS_QUERY_MS = 2_000;

const elapsed = (since: number): string => {
  const s = Math.round((Date.now() - since) / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
};

/** The lines Ctrl-C prints: the run goes on, and how to reach it. */
export function interruptHint(prefix: string, id: string): string {
  return (
    `durable-agents: stopped waiting; run ${id} goes on.\n` +
    `  watch it:   ${prefix} watch ${id}\n` +
    `  its result: ${prefix} result ${id}\n` +
    `  stop it:    ${prefix} stop ${id}\n`
  );
}

export interface WaitOptions {
  /** Draw the progress line (off while another view, e.g. `--watch`, prints). Default true. */
  progress?: boolean;
}

/**
 * Runs `wait` (which waits for the run) with the worker notice, the progress line and the Ctrl-C
 * hint around it; returns what `wait` returns.
 */
export async function whileWaiting<T>(
  deps: AgentCommandDeps,
  agents: AgentClient,
  id: string,
  wait: () => Promise<T>,
  options: WaitOptions = {},
): Promise<T> {
  const note = noteOf(deps);
  const started = Date.now();
  const tty = options.progress !== false && deps.progress?.isTTY === true;
  let line = '';
  const clearLine = () => {
    if (line) deps.progress?.write('\r\x1b[2K');
    line = '';
  };
  let status = 'waiting';
  let workerMissing: string | undefined;
  let stopped = false;

  const checkWorker = async () => {
    const { taskQueue, polling, status: runStatus } = await agents.workers(id);
    // An ended run waits for nobody.
    if (stopped || runStatus !== 'RUNNING') return;
    if (!polling && workerMissing === undefined) {
      workerMissing = taskQueue;
      clearLine();
      note(
        `durable-agents: no worker is polling task queue "${taskQueue}": run ${id} waits until one does; ` +
          startWorkerHint(taskQueue),
      );
    } else if (polling && workerMissing !== undefined) {
      workerMissing = undefined;
      clearLine();
      note(`durable-agents: a worker now polls task queue "${taskQueue}"`);
    }
  };
  const readProgress = async () => {
    if (workerMissing !== undefined) return;
    const s = await agents.client.connection.withDeadline(Date.now() + PROGRESS_QUERY_MS, () => agents.state(id));
    status = `turn ${s.turn} · ${s.status.replace(/_/g, ' ')} · ${s.model}`;
  };
  const draw = () => {
    if (!tty || stopped) return;
    const what = workerMissing !== undefined ? `waiting for a worker on task queue "${workerMissing}"` : status;
    line = `${id} · ${what} · ${elapsed(started)}`;
    deps.progress?.write(`\r\x1b[2K${line}`);
  };

  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, fn: () => Promise<void> | void) => {
    let busy = false;
    const tick = () => {
      if (busy || stopped) return;
      busy = true;
      void Promise.resolve()
        .then(fn)
        .catch(() => undefined)
        .finally(() => (busy = false));
    };
    tick();
    const timer = setInterval(tick, ms);
    timer.unref();
    timers.push(timer);
  };
  every(WORKER_CHECK_MS, checkWorker);
  if (tty) {
    every(PROGRESS_MS, readProgress);
    every(PROGRESS_MS, draw);
  }
  const stopListening = deps.onInterrupt?.(() => {
    stopped = true;
    clearLine();
    note(interruptHint(hintPrefix(deps), id));
    return EXIT.interrupted;
  });
  try {
    return await wait();
  } finally {
    stopped = true;
    for (const t of timers) clearInterval(t);
    stopListening?.();
    clearLine();
  }
}
