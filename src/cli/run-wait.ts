/**
 * Waiting for a run without waiting in silence: a notice within seconds when no worker polls the
 * run's task queue, a notice with the commands that decide when the run waits for an approval,
 * for what its kind waits on (a plan) or for a follow-up to its answer, one progress line redrawn
 * in place on a terminal, and at Ctrl-C the exact commands to watch, read, decide or stop the run
 * that goes on.
 */
import type { AgentClient } from '../client';
import type { AgentStateView } from '../contracts/agent-run';
import { startWorkerHint } from '../client/client-errors';
import {
  approvalCommands,
  approvalNotice,
  waitCommands,
  waitNotice,
  waitingOn,
  waitingWords,
  type WaitingOn,
} from './decision-hints';
import { EXIT } from './exit-codes';
import { redrawLine } from './terminal-text';
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

/** The notice that nobody polls the run's task queue, so it waits. */
export const noWorkerNotice = (taskQueue: string, id: string): string =>
  `no worker is polling task queue "${taskQueue}": run ${id} waits until one does; ` + startWorkerHint(taskQueue);

/** The lines Ctrl-C prints: the run goes on, how to reach it, and how to decide what it waits for. */
function interruptHint(prefix: string, id: string, waiting?: WaitingOn): string {
  const decide = [
    ...(waiting?.approvals ?? []).flatMap((a) => [
      `  it waits for approval of ${a.tool} ${a.toolCallId}:`,
      ...approvalCommands(prefix, id, a.toolCallId).map((line) => `  ${line}`),
    ]),
    ...(waiting?.wait
      ? [`  it waits for ${waiting.wait.what}:`, ...waitCommands(prefix, id, waiting.wait).map((line) => `  ${line}`)]
      : []),
  ];
  return [
    `stopped waiting; run ${id} goes on.`,
    `  watch it:   ${prefix} watch ${id}`,
    `  its result: ${prefix} result ${id}`,
    `  stop it:    ${prefix} stop ${id}`,
    ...decide,
    '',
  ].join('\n');
}

export interface WaitOptions {
  /**
   * Draw the progress line and announce the decisions the run waits for (off while another view,
   * e.g. `--watch`, prints). Default true.
   */
  progress?: boolean;
  /**
   * Gets the run's answer each time it answers and waits for a follow-up (`--idle-wait`), before the
   * notice that says how to send one.
   */
  answered?: (text: string) => void;
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
  const prefix = hintPrefix(deps);
  const started = Date.now();
  const follow = options.progress !== false;
  const tty = follow && deps.progress?.isTTY === true;
  let line = '';
  const clearLine = () => {
    if (line) deps.progress?.write(redrawLine(''));
    line = '';
  };
  let status = 'waiting';
  let workerMissing: string | undefined;
  let stopped = false;
  let waiting: WaitingOn | undefined;
  const announced = new Set<string>();
  let waitShown: string | undefined;

  const checkWorker = async () => {
    const { taskQueue, polling, status: runStatus } = await agents.workers(id);
    // An ended run waits for nobody.
    if (stopped || runStatus !== 'RUNNING') return;
    if (!polling && workerMissing === undefined) {
      workerMissing = taskQueue;
      clearLine();
      note(noWorkerNotice(taskQueue, id));
    } else if (polling && workerMissing !== undefined) {
      workerMissing = undefined;
      clearLine();
      note(`a worker now polls task queue "${taskQueue}"`);
    }
  };
  /** Says once, for each call (and each wait its kind names), what the run waits for and how to decide it. */
  const announce = (w: WaitingOn, s: AgentStateView) => {
    const lines: string[] = [];
    for (const a of w.approvals) {
      if (announced.has(a.toolCallId)) continue;
      announced.add(a.toolCallId);
      lines.push(approvalNotice(prefix, id, a));
    }
    const fresh = w.wait !== undefined && w.wait.what !== waitShown;
    if (w.wait && fresh) lines.push(waitNotice(prefix, id, w.wait));
    waitShown = w.wait?.what;
    if (lines.length === 0) return;
    clearLine();
    if (fresh && s.status === 'awaiting_follow_up') options.answered?.(s.finalText);
    for (const line of lines) note(line);
  };
  const readProgress = async () => {
    if (workerMissing !== undefined) return;
    const s = await agents.client.connection.withDeadline(Date.now() + PROGRESS_QUERY_MS, () => agents.state(id));
    if (stopped) return;
    waiting = waitingOn(s, agents.kinds);
    announce(waiting, s);
    status = `turn ${s.turn} · ${waitingWords(waiting) ?? s.status.replace(/_/g, ' ')} · ${s.model}`;
  };
  const draw = () => {
    if (!tty || stopped) return;
    const what = workerMissing !== undefined ? `waiting for a worker on task queue "${workerMissing}"` : status;
    line = `${id} · ${what} · ${elapsed(started)}`;
    deps.progress?.write(redrawLine(line));
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
  if (follow) every(tty ? PROGRESS_MS : WORKER_CHECK_MS, readProgress);
  if (tty) every(PROGRESS_MS, draw);
  const stopListening = deps.onInterrupt?.(() => {
    stopped = true;
    clearLine();
    note(interruptHint(prefix, id, waiting));
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
