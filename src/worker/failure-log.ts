/**
 * Expected failures in one log line. The SDK logs every failed activity attempt and every failed
 * workflow at WARN with the error, and a text logger prints its whole stack: for a provider's
 * refusal (a revoked key, a rate limit), a run misconfigured on purpose or a run that ended in
 * error, the type and message say all there is. And the SDK's warning that a worker polls no
 * workflow tasks is left out for the activity workers of limited queues, which poll none by design.
 */
import { oneLine } from '../common/error-text';
import { ApplicationFailure, type LogLevel, type LogMetadata, type Logger } from '@temporalio/common';
import { AGENT_FAILURE, LLM_FAILURE } from '../contracts/failure-types';
import { LLM_QUEUE_SEGMENT } from '../policy/llm-queues';
import { LevelLogger } from './level-logger';

const ACTIVITY_FAILED = 'Activity failed';
const WORKFLOW_FAILED = 'Workflow failed';
const NO_WORKFLOWS = 'No workflows registered, not polling for workflow tasks';

const LLM_FAILURE_TYPES: ReadonlySet<string> = new Set(Object.values(LLM_FAILURE));
const AGENT_FAILURE_TYPES: ReadonlySet<string> = new Set(Object.values(AGENT_FAILURE));

/** The fields of an `ApplicationFailure`, also one made in the workflow sandbox (another realm's class). */
interface FailureFields {
  type: string;
  message: string;
  nonRetryable?: boolean | null;
}

function failureFields(error: unknown): FailureFields | undefined {
  if (error instanceof ApplicationFailure)
    return error.type ? { type: error.type, message: error.message, nonRetryable: error.nonRetryable } : undefined;
  if (typeof error !== 'object' || error === null) return undefined;
  const { name, type, message, nonRetryable } = error as Record<string, unknown>;
  if (name !== 'ApplicationFailure' || typeof type !== 'string' || typeof message !== 'string') return undefined;
  return { type, message, nonRetryable: nonRetryable === true };
}

/** An LLM failure of any kind, or a run's own non-retryable failure: expected, so its stack says nothing. */
function expectedFailure(error: unknown): FailureFields | undefined {
  const f = failureFields(error);
  if (!f) return undefined;
  return LLM_FAILURE_TYPES.has(f.type) || (f.nonRetryable === true && AGENT_FAILURE_TYPES.has(f.type)) ? f : undefined;
}

/**
 * A workflow fails only by throwing a failure on purpose (any other error fails its task, which is
 * retried), so each is expected. It reaches the log as a copy that kept its message and stack but
 * not its type.
 */
function workflowFailure(error: unknown): { message: string } | undefined {
  const f = failureFields(error);
  if (f) return f;
  if (error instanceof Error && error.stack?.startsWith('ApplicationFailure:')) return { message: error.message };
  return undefined;
}

/** The SDK's notice that a limited queue's activity worker (`worker/limit-workers.ts`) polls no workflow tasks. */
const limitWorkerNotice = (message: string, meta: LogMetadata | undefined): boolean =>
  message === NO_WORKFLOWS && typeof meta?.taskQueue === 'string' && meta.taskQueue.includes(LLM_QUEUE_SEGMENT);

/**
 * A logger for text output that writes an expected failure as one line: the activity (or the
 * workflow), its run and attempt, the failure's type and message, and no stack. A limited queue's
 * worker's notice that it polls no workflows is dropped. Any other line passes as it is.
 */
export class ExpectedFailureLogger extends LevelLogger {
  constructor(private readonly inner: Logger) {
    super();
  }

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (limitWorkerNotice(message, meta)) return;
    const failure =
      message === ACTIVITY_FAILED
        ? expectedFailure(meta?.error)
        : message === WORKFLOW_FAILED
          ? workflowFailure(meta?.error)
          : undefined;
    if (!failure || !meta) return void this.inner.log(level, message, meta);
    const { activityType, workflowType, workflowId, attempt } = meta;
    const activity = typeof activityType === 'string';
    const where = [
      activity ? activityType : typeof workflowType === 'string' ? workflowType : undefined,
      typeof workflowId === 'string' ? `${activity ? 'of ' : ''}${workflowId}` : undefined,
      typeof attempt === 'number' ? `(attempt ${attempt})` : undefined,
    ]
      .filter(Boolean)
      .join(' ');
    const text = `${'type' in failure ? `${failure.type}: ` : ''}${oneLine(failure.message)}`;
    // Symbol keys carry the SDK's timestamp; the rest is in the line.
    const kept: LogMetadata = {};
    for (const key of Object.getOwnPropertySymbols(meta)) kept[key] = meta[key];
    this.inner.log(level, `${message}${where ? ` ${where}` : ''}: ${text}`, kept);
  }
}
