/** How the runtime treats each LLM failure type: retry it, fail over, or give up. */
import { LLM_FAILURE, type LlmFailureType } from '../contracts/failure-types';

const RETRYABLE: ReadonlySet<string> = new Set<LlmFailureType>([
  LLM_FAILURE.rateLimited,
  LLM_FAILURE.overloaded,
  LLM_FAILURE.serverError,
  LLM_FAILURE.timeout,
  LLM_FAILURE.connection,
  LLM_FAILURE.conflict,
  LLM_FAILURE.unknown,
]);

/** Whether a failure of this type is worth retrying unchanged. */
export const isRetryableLlmFailure = (type: string): boolean => RETRYABLE.has(type);

/** Failure types that should never be retried: usable as a retry policy's `nonRetryableErrorTypes`. */
export const NON_RETRYABLE_LLM_FAILURES: readonly LlmFailureType[] = Object.values(LLM_FAILURE).filter(
  (t) => !RETRYABLE.has(t),
);

/** Failure types after which trying another provider/model may help (the same call will not). */
export const PROVIDER_SWITCH_LLM_FAILURES: readonly LlmFailureType[] = [
  LLM_FAILURE.rateLimited,
  LLM_FAILURE.overloaded,
  LLM_FAILURE.serverError,
  LLM_FAILURE.authentication,
  LLM_FAILURE.quotaExceeded,
];

/** The delay a refused call's provider asked for, from the failure's details (`retryAfterMs`), if it said. */
export function retryAfterInDetails(details: readonly unknown[] | undefined | null): number | undefined {
  const first: unknown = details?.[0];
  const ms =
    typeof first === 'object' && first !== null ? (first as { retryAfterMs?: unknown }).retryAfterMs : undefined;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}
