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

/** Why a run ended. Limits each have their own reason. */
export type AgentStopReason =
  | 'completed'
  | 'max_turns'
  | 'token_budget'
  | 'cost_budget'
  /** A child run spent what its parent had left of its token or cost budget. */
  | 'budget'
  | 'max_tool_calls'
  | 'hook_stopped'
  | 'stopped'
  | 'cancelled'
  | 'error';
