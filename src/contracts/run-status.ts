/** Where a run stands and why it ended: shared by the state, the result and the events. */
export type AgentStatus =
  | 'running'
  | 'awaiting_approval'
  | 'awaiting_client_tools'
  /** Answered, and waiting (`idleWaitMs`) for a follow-up before it completes. */
  | 'awaiting_follow_up'
  | 'completed'
  | 'stopped'
  | 'failed';

/** The statuses of a run that has not ended: a closed execution still in one was ended from outside. */
export const OPEN_STATUSES: readonly AgentStatus[] = [
  'running',
  'awaiting_approval',
  'awaiting_client_tools',
  'awaiting_follow_up',
];

/** Every reason a run ends for. Limits each have their own reason. */
export const AGENT_STOP_REASONS = [
  'completed',
  'max_turns',
  'token_budget',
  'cost_budget',
  /** A child run spent what its parent had left of its token or cost budget. */
  'budget',
  'max_tool_calls',
  'hook_stopped',
  'stopped',
  'cancelled',
  'error',
] as const;
/** Why a run ended. */
export type AgentStopReason = (typeof AGENT_STOP_REASONS)[number];

/**
 * Whether a run that ended with `reason` was cut off before it finished its work: stopped by an
 * operator, a hook, a limit or a budget. Such a run is `stopped` to `list` and ends the CLI with
 * exit code 3, whatever status its result gives.
 */
export const cutOff = (reason: string): boolean => reason !== 'completed' && reason !== 'error';

/** The status to show for a run: `stopped` for a run cut off whose status says `completed`. */
export const shownRunStatus = (status: string, stopReason: string | undefined): string =>
  status === 'completed' && stopReason !== undefined && cutOff(stopReason) ? 'stopped' : status;
