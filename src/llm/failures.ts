/** Constructors for the LLM layer's typed Temporal failures. */
import { ApplicationFailure } from '@temporalio/common';
import { isRetryableLlmFailure } from '../policy/llm-failure-policy';
import { LLM_FAILURE, type LlmFailureType } from '../contracts/failure-types';

/** JSON-safe facts about a provider failure, carried as the failure's first detail. */
export interface LlmFailureDetails {
  status?: number;
  providerErrorType?: string;
  requestId?: string;
  retryAfterMs?: number;
}

export function llmFailure(
  type: LlmFailureType,
  message: string,
  options: { details?: LlmFailureDetails; retryAfterMs?: number; cause?: Error } = {},
): ApplicationFailure {
  const nonRetryable = !isRetryableLlmFailure(type);
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable,
    details: options.details ? [options.details] : undefined,
    nextRetryDelay: !nonRetryable && options.retryAfterMs !== undefined ? options.retryAfterMs : undefined,
    cause: options.cause,
  });
}

export const configFailure = (message: string): ApplicationFailure => llmFailure(LLM_FAILURE.config, message);

export const authenticationFailure = (message: string): ApplicationFailure =>
  llmFailure(LLM_FAILURE.authentication, message);
