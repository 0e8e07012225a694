/**
 * The SDK runtime a replay runs in. A failed replay is reported by its result; the SDK would also
 * log it (a stack per history, and core's "Failing workflow task" line on stdout), so replay
 * workers' own lines are dropped and core logs below ERROR are not printed.
 */
import { DefaultLogger, Runtime, type LogLevel, type LogMetadata, type Logger } from '@temporalio/worker';
import { LevelLogger } from '../worker/level-logger';

/** The `replayName` of every replay worker: their task queues start with it. */
export const REPLAY_NAME = 'durable-agents-replay';

/** Passes every line to `inner` except those of replay workers. */
class WithoutReplayLines extends LevelLogger {
  constructor(private readonly inner: Logger) {
    super();
  }

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (String(meta?.taskQueue ?? '').startsWith(REPLAY_NAME)) return;
    this.inner.log(level, message, meta);
  }
}

/**
 * Installs a runtime that keeps replays quiet, unless the process has one already (the SDK has
 * one runtime per process, created at the first worker or replay): other lines are logged at
 * `level` and above, core's at ERROR. Returns whether it installed one.
 */
export function installReplayRuntime(level: LogLevel = 'WARN'): boolean {
  if (Runtime._instance) return false;
  Runtime.install({
    logger: new WithoutReplayLines(new DefaultLogger(level)),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  return true;
}
