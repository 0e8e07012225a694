/**
 * Failure types of the LLM layer. Activities throw `ApplicationFailure`s carrying one of these
 * as `type`; workflows branch on the type (never on message text), e.g. to switch provider when
 * a model is overloaded or to compact the conversation when the context is too long.
 */
export const LLM_FAILURE = {
  /** 429. Retryable; `nextRetryDelay` follows `retry-after-ms` / `retry-after` when given. */
  rateLimited: 'LlmRateLimited',
  /** 529 or 503: the provider is overloaded. Retryable. */
  overloaded: 'LlmOverloaded',
  /** Any other 5xx, or a response that broke the wire protocol. Retryable. */
  serverError: 'LlmServerError',
  /** 408 or a client-side timeout. Retryable. */
  timeout: 'LlmTimeout',
  /** Connection refused or reset, or a stream that broke mid-way. Retryable. */
  connection: 'LlmConnectionError',
  /** 409. Retryable. */
  conflict: 'LlmConflict',
  /** Billing or quota exhausted (OpenAI `insufficient_quota`, Anthropic low credit balance). Not retryable. */
  quotaExceeded: 'LlmQuotaExceeded',
  /** 401, 403, or a missing API key. Not retryable. */
  authentication: 'LlmAuthentication',
  /** 400, 404, 422. Not retryable: the request itself is wrong. */
  badRequest: 'LlmBadRequest',
  /** The prompt exceeds the model's context window (or 413). Not retryable as is: compact first. */
  contextTooLong: 'LlmContextTooLong',
  /** The provider refused the content (policy filter). Not retryable. */
  contentFiltered: 'LlmContentFiltered',
  /** The call was cancelled by its caller. Not retryable. */
  aborted: 'LlmAborted',
  /** Bad model spec, unknown provider, malformed config file. Not retryable. */
  config: 'LlmConfigError',
  /** Anything the classifier did not recognise. Retryable. */
  unknown: 'LlmUnknown',
} as const;

export type LlmFailureType = (typeof LLM_FAILURE)[keyof typeof LLM_FAILURE];
