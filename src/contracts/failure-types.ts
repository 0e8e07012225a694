/**
 * Every failure type the project raises or branches on, in one place. Activities throw
 * `ApplicationFailure`s carrying one of these as `type`, workflows fail runs with them, and retry
 * policies list them; code branches on the type, never on message text.
 */

/**
 * Failure types of the LLM layer, e.g. to switch provider when a model is overloaded or to compact
 * the conversation when the context is too long (how each is treated: `policy/llm-failure-policy.ts`).
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

/** Failure types of the agent runtime, its tools and the PEV workflow. */
export const AGENT_FAILURE = {
  /** A config the workflow refuses to run (one line per problem). Fails the run. */
  config: 'AgentConfigError',
  /**
   * A run that ended in error (status `failed`): the workflow fails with this non-retryable type,
   * and the failure's first detail is the run's result, error included.
   */
  runFailed: 'AgentRunFailed',
  /**
   * A run carried over by continue-as-new in a shape this code does not read (another version of
   * the workflow code carried it). Fails the run; a worker of that version can run it.
   */
  carriedVersion: 'CarriedVersionError',
  /** A content-store problem (a gap in a log, a missing body). Not retryable. */
  store: 'AgentStoreError',
  /** A content store that cannot be reached (database down, connection broken). Retryable. */
  storeUnavailable: 'AgentStoreUnavailable',
  /** The model answered with an error stop reason and nothing else. */
  model: 'ModelError',
  /** The on-turn-end hook activity failed; the run ends with this error. */
  hookFailed: 'HookFailed',
  /** A PEV role without a prepared prompt (a misconfigured role). Fails the run. */
  pevRole: 'PevRoleError',
  /** A prompts directory that cannot be used. Not retryable: fixing it needs a person. */
  pevPrompts: 'PevPromptsError',
  /** An earlier tool result that cannot be reused. Not retryable. */
  pevReuse: 'PevReuseError',
  /** A bad MCP server config. Not retryable. */
  mcpConfig: 'McpConfigError',
  /** An MCP server that could not be reached or broke the connection. Retryable. */
  mcpConnection: 'McpConnectionError',
  /** A client tool the run declares under the name of one of the worker's tools. Not retryable. */
  clientToolClash: 'ClientToolClash',
  /** A tool the run allows by its exact name that the worker does not have. Not retryable. */
  unknownTool: 'UnknownTool',
  /** A tool that asked to be retried (`RetryableToolError`). Retryable. */
  retryableTool: 'RetryableToolError',
  /**
   * The context is over the model's window and cannot be brought under it while summaries fail:
   * the run ends rather than send a request the provider would refuse.
   */
  contextOverflow: 'AgentContextOverflow',
} as const;

/** The failures of pinning a run's tools: its MCP servers, its tool names, its client tools. */
export const PIN_FAILURES = [
  AGENT_FAILURE.mcpConfig,
  AGENT_FAILURE.mcpConnection,
  AGENT_FAILURE.clientToolClash,
  AGENT_FAILURE.unknownTool,
] as const;

/** Failure types of tenant budgets (docs/fleet.md, Tenant budgets across runs). */
export const BUDGET_FAILURE = {
  /** A reservation the budget cannot cover: the spend plus the estimate would pass it. */
  exceeded: 'TenantBudgetExceeded',
  /** A reservation only other open reservations stand in the way of: ask again once they settle. */
  busy: 'TenantBudgetBusy',
  /** Limits, a reservation or a settlement the ledger cannot use (refused by its validator). */
  invalid: 'TenantBudgetInvalid',
  /** A request the ledger keeps in its line: the run is told when it is its turn (or asks again). */
  queued: 'TenantBudgetQueued',
  /** A request that reached the ledger after its run stopped waiting for the answer: refused, so nothing counts it. */
  stale: 'TenantBudgetStale',
} as const;
