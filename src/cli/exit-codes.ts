/** The CLI's exit codes: one per way a command can end (docs/cli.md, Exit codes). */
import { isGrpcServiceError } from '@temporalio/client';
import { CommanderError } from 'commander';
import { AgentClientError, NoWorkerError, RunClosedError } from '../client';
import { UnreachableServerError } from '../connection/setup-error';
import { cutOff } from '../contracts/run-status';
import { errorText } from '../common/error-text';

/** gRPC's status code UNAVAILABLE: the server went away or never answered. */
const GRPC_UNAVAILABLE = 14;

export const EXIT = {
  /** The command did what was asked; for `run`, `result` and `watch`: the run completed. */
  ok: 0,
  /** The run failed, or the command failed for a reason not listed here. */
  failed: 1,
  /** Bad arguments or input, an unknown run, or a request the run refused. */
  usage: 2,
  /** The run was stopped, cancelled or terminated, or ended at a limit. */
  stopped: 3,
  /** No Temporal server answers at the address. */
  unreachable: 4,
  /** No worker polls the run's task queue, and the command needs one now. */
  noWorker: 5,
  /** Ctrl-C: the command stopped waiting; the run goes on. */
  interrupted: 130,
} as const;

/** The exit code of a run that ended with `stopReason` (`completed` is the only clean end). */
export function exitCodeOfStop(status: string, stopReason: string): number {
  if (status === 'failed' || stopReason === 'error') return EXIT.failed;
  return cutOff(stopReason) ? EXIT.stopped : EXIT.ok;
}

/** A usage error of the CLI itself (bad flags, unreadable input). */
export class UsageError extends AgentClientError {
  override name = 'UsageError';
}

/** What `read` returns; what it throws becomes one usage error with its message. */
export function usage<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new UsageError(errorText(err));
  }
}

export function exitCodeOfError(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof NoWorkerError) return EXIT.noWorker;
  if (error instanceof RunClosedError)
    return error.closedAs === 'terminated' || error.closedAs === 'cancelled' ? EXIT.stopped : EXIT.failed;
  if (error instanceof AgentClientError) return EXIT.usage;
  if (error instanceof UnreachableServerError) return EXIT.unreachable;
  if (isGrpcServiceError(error) && error.code === GRPC_UNAVAILABLE) return EXIT.unreachable;
  return EXIT.failed;
}
