/**
 * The run's trace: every event of the loop as one discriminated
 * union of JSON-safe data. Kept (bounded) in workflow state and readable by the state query.
 */
import type { StopReason, Usage } from './message-model';
import type { AgentStatus, AgentStopReason } from './run-status';

interface EventBase {
  /** Workflow time in ms since the epoch. */
  at: number;
  turn: number;
}

export type AgentEvent = EventBase &
  (
    | { type: 'turn_start'; model: string }
    | {
        type: 'turn_end';
        model: string;
        provider: string;
        stopReason: StopReason;
        toolCalls: number;
        usage: Usage;
      }
    /** A tool call begins to run; `args` is a preview (the whole call is in the stored answer). */
    | { type: 'tool_start'; toolCallId: string; tool: string; args: string }
    | {
        type: 'tool_execution';
        toolCallId: string;
        tool: string;
        durationMs: number;
        isError: boolean;
        skipped?: string;
        /** A preview of the result, or of the error text when `isError`. */
        preview?: string;
        /** Content-store hash of the stored result, when the tool ran (the whole result). */
        resultHash?: string;
      }
    | { type: 'client_tool_request'; toolCallId: string; tool: string }
    | { type: 'client_tool_result'; toolCallId: string; tool: string; isError: boolean; timedOut?: boolean }
    | { type: 'approval_required'; toolCallId: string; tool: string; argsHash: string; args: string }
    | {
        type: 'approval_decided';
        toolCallId: string;
        tool: string;
        decision: 'approved' | 'rejected';
        by: 'user' | 'timeout' | 'eval';
        edited: boolean;
        reason?: string;
      }
    /** `text`: the message's preview (absent in runs recorded before it was kept). */
    | { type: 'steering'; messageId: string; text?: string; skippedTools: string[] }
    | { type: 'follow_up'; messageId: string; text?: string }
    | { type: 'provider_switch'; fromModel: string; toModel: string; reason: string }
    | { type: 'context_compacted'; summarisedMessages: number; tokensBefore: number; tokensAfter: number }
    /**
     * The context was fitted without a summary: results before `maskBefore` masked, the oldest
     * `droppedMessages` left out of view (the store keeps them).
     */
    | {
        type: 'context_trimmed';
        maskBefore: number;
        droppedMessages: number;
        tokensBefore: number;
        tokensAfter: number;
      }
    | {
        type: 'hook_failed';
        hook: 'onTurnEnd' | 'onMessage' | 'onError' | 'resolveModel' | 'transformContext';
        message: string;
      }
    /** A `transformContext` hook rewrote what the model sees for this call (`note`: what it said it did). */
    | { type: 'context_transformed'; hook: string; messagesHash: string; note?: string }
    /** A model call that failed; `attempts` when it made every attempt its retry policy allows. */
    | {
        type: 'model_failure';
        model: string;
        failureType: string;
        retryable: boolean;
        message: string;
        attempts?: number;
      }
    | { type: 'continued_as_new'; runs: number }
    /**
     * The conversation began with another run's (`fromRun`; `atTurn` for a fork) or with the messages
     * the application gave (no `fromRun`): `messages` entries, `turns` answers.
     */
    | { type: 'conversation_continued'; fromRun?: string; atTurn?: number; messages: number; turns: number }
    /**
     * A plan waiting for its decision (pev's `confirmPlan`) was approved, rejected (`feedback`: a
     * preview), or not decided in time.
     */
    | { type: 'plan_decided'; cycle: number; approved: boolean; by: 'user' | 'timeout'; feedback?: string }
    /** A phase of a multi-role run (e.g. pev's planning, executing a todo, verifying). */
    | { type: 'phase'; phase: string; cycle: number; todoId?: string; todo?: string }
    /**
     * A child run (`childId`) started on `task` (a preview): by a sub-agent call (`toolCallId`), or
     * to execute a pev todo (`todoId`).
     */
    | { type: 'child_start'; toolCallId?: string; todoId?: string; agent: string; childId: string; task: string }
    /** The child run ended; its usage and cost now count toward this run's. */
    | {
        type: 'child_end';
        toolCallId?: string;
        todoId?: string;
        agent: string;
        childId: string;
        status: AgentStatus;
        stopReason?: AgentStopReason;
        usage: Usage;
        costUsd: number;
      }
    /**
     * The tenant's budget refused a call (`refused`: the run moves to a cheaper model or stops), made
     * it wait for other calls' reservations (`waiting`), or could not take its settlement (`unsettled`:
     * the ledger charges the reservation's estimate when it expires), or charged a call's attempts
     * that ended without settling at their estimates (`charged`: counted in the run's cost).
     */
    | { type: 'tenant_budget'; tenant: string; what: 'refused' | 'waiting' | 'unsettled' | 'charged'; message: string }
    /** `stopReason` as the result gives it: a completed run's kind may name its own end (pev's `max_cycles`). */
    | { type: 'done'; stopReason: string; finalText: string; turns: number; usage: Usage; costUsd: number }
    | { type: 'error'; message: string; failureType?: string; retryable: boolean }
  );
