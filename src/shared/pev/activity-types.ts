/** The typed boundary between the PEV workflow and its own activities (the agent loop's are in `../agent`). */
import type { MessageMeta } from '../agent/types';
import type { PevPrompts } from './prompt-template';

export interface LoadPevPromptsInput {
  /**
   * Directory (on the worker) with `<role>.md` business context files and optional
   * `core/<role>.md` template overrides. Absent: the shipped core templates, no business context.
   */
  promptsDir?: string;
  /** Roles to load; default planner, executor and verifier. Other roles need `promptsDir/core/<role>.md`. */
  roles?: string[];
}

export interface ReuseToolResultInput {
  conversationId: string;
  /** Log position of the new tool result. */
  seq: number;
  /** The repeated call this result answers. */
  toolCallId: string;
  /** Content hash of the earlier call's stored result. */
  fromHash: string;
  /** Put before the earlier result's content. */
  note: string;
}

export interface PevActivities {
  /** Core templates (with overrides) and business context, read once per run. */
  loadPevPrompts(input: LoadPevPromptsInput): Promise<PevPrompts>;
  /** Writes the earlier result of an identical call as the result of `toolCallId`, without running the tool. */
  reuseToolResult(input: ReuseToolResultInput): Promise<MessageMeta>;
}
