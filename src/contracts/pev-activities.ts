/** The typed boundary between the PEV workflow and its own activities (the agent loop's are in `../agent`). */
import type { MessageMeta } from './agent-run';

/** A run's own business context: `shared` for every role, `roles` per role (`PevOptions.businessContext`). */
export interface PevBusinessContext {
  shared?: string;
  roles?: Record<string, string>;
}

export interface LoadPevPromptsInput {
  /**
   * Directory (on the worker) with `<role>.md` business context files and optional
   * `core/<role>.md` template overrides. Absent: the shipped core templates, no business context.
   */
  promptsDir?: string;
  /** Roles to load; default planner, executor and verifier. Other roles need `promptsDir/core/<role>.md`. */
  roles?: string[];
  /** The run's own business context, after the directory's (`PevOptions.businessContext`). */
  businessContext?: PevBusinessContext;
}

export interface PreparePevPromptsInput extends LoadPevPromptsInput {
  /** The run's conversation, recorded as a user of the stored prompts (none: prompts prepared outside a run). */
  conversationId?: string;
  /** Store each core role's JSON schema as its response format. */
  structuredOutput: boolean;
}

/** Each role's system prompt (and response format) stored once; model calls name it by hash. */
export interface PreparedPevPrompts {
  roles: Record<string, { promptHash: string; systemPromptChars: number }>;
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
  /** Reads core templates (with overrides) and business context once per run, and stores each role's system prompt. */
  preparePevPrompts(input: PreparePevPromptsInput): Promise<PreparedPevPrompts>;
  /** Writes the earlier result of an identical call as the result of `toolCallId`, without running the tool. */
  reuseToolResult(input: ReuseToolResultInput): Promise<MessageMeta>;
}
