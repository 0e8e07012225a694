/**
 * A run's conversation as people and applications read it: one item per log position, in order,
 * across continue-as-new, with compaction summaries placed where they replaced the log. What
 * `AgentClient.messages` returns and `transcript --json` prints.
 */
import type { UserOrigin } from './message-drafts';
import type { AgentMessageKind } from './agent-run';
import type { Usage } from './message-model';

/** A tool call of an assistant message, with the arguments the model gave. */
export interface RunToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type RunMessage =
  /** A user message: the task, steering, a follow-up, or (no origin) a message the agent kind wrote. */
  /** `agentRole`: the role of a multi-role run (pev) the message was written for, or by. */
  | { role: 'user'; seq: number; origin?: UserOrigin; agentRole?: string; text: string; timestamp?: number }
  | {
      role: 'assistant';
      seq: number;
      agentRole?: string;
      /** `provider/model` of the model that answered. */
      model?: string;
      stopReason?: string;
      /** The tokens the call took (absent in bodies stored without them). */
      usage?: Usage;
      /** The answer's text blocks joined. */
      text: string;
      thinking: string[];
      toolCalls: RunToolCall[];
      timestamp?: number;
    }
  | {
      role: 'tool_result';
      seq: number;
      toolCallId: string;
      toolName: string;
      isError: boolean;
      text: string;
      timestamp?: number;
    }
  /** A compaction summary: the model saw `text` instead of positions `[fromSeq, toSeq)`. */
  | { role: 'summary'; fromSeq: number; toSeq: number; text: string; timestamp?: number }
  /**
   * A log entry the model never sees: a context note, a system event or a tool's log; `childRun`
   * names the child run it is about (a pev todo run as a child), `toolCallId` the call a tool log is of.
   */
  | {
      role: 'note';
      seq: number;
      kind: AgentMessageKind;
      text: string;
      timestamp?: number;
      childRun?: string;
      toolCallId?: string;
    }
  /** A position whose body the store cannot give, and why. */
  | { role: 'missing'; seq: number; reason: string };

export type RunMessageRole = RunMessage['role'];
