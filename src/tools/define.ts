import type { z } from 'zod';
import type { ToolCallContext, ToolMode, ToolRetry } from '../contracts/tool-catalog';

/** What a tool implementation receives besides its validated arguments. */
export interface ToolExecutionContext {
  runId: string;
  toolCallId: string;
  /** `runId:toolCallId`: the same on every retry of the same call. Side-effecting tools should dedupe on it. */
  idempotencyKey: string;
  /** The per-call context (`currentResourceId` / `currentTaskId`). */
  context: ToolCallContext;
  /** The run's workspace root, when it has one. Built-in file tools refuse every path without it. */
  workspaceRoot?: string;
  /** Aborted when the activity is cancelled or times out. */
  signal: AbortSignal;
  /**
   * Writes a line to the run's log: after the call's result, the lines become one `tool_log` entry,
   * which people and tools read (`transcript`) and the model never sees.
   */
  log(line: string): void;
}

/** Options every tool shares, with the defaults `defineTool` applies. */
export interface ToolOptions {
  /** Default `server`. */
  mode?: ToolMode;
  /** Default 60 s. */
  timeoutMs?: number;
  retry?: ToolRetry;
  /**
   * Default false. A side-effecting call runs alone (never beside another call of the same answer)
   * and never inside the model call. It is retried under `retry` like any tool, so it should dedupe
   * on `ctx.idempotencyKey`, which stays the same on every attempt; set `retry.nonRetryable` for a
   * tool that must not run twice.
   */
  sideEffects?: boolean;
  /** Default 32,000 characters. */
  maxOutputChars?: number;
  /**
   * Default true for tools without side effects: a pev run answers an identical later call (same
   * arguments) from the earlier result, until a side-effecting call, a new cycle or a follow-up.
   * Set false for a tool whose answer changes by itself (a clock, a live price).
   */
  dedupe?: boolean;
  /**
   * Run as a local activity: on the workflow's worker, inside the workflow task, without heartbeats.
   * Default: true for tools without side effects whose timeout is at most 10 s. Set false for a
   * tool that may take long or needs heartbeats (it then runs as a regular activity).
   */
  local?: boolean;
}

/**
 * A tool: one zod object schema gives the JSON Schema the model sees, the validation of its
 * arguments and the argument type of `execute`.
 *
 * `execute` may return anything: strings are used as they are, objects become JSON and
 * `undefined`/`null` a success text. A thrown error becomes an error result the model reads.
 */
export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> extends ToolOptions {
  name: string;
  description: string;
  parameters: S;
  execute(args: z.output<S>, ctx: ToolExecutionContext): unknown;
}

/** Typed identity helper: infers the argument type of `execute` from the schema. */
export function defineTool<S extends z.ZodObject>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}

/** A tool schema plus description, for {@link ToolRegistry.registerFunctions}. */
export interface FunctionSpec<S extends z.ZodObject = z.ZodObject> extends ToolOptions {
  description: string;
  parameters: S;
}

/**
 * Thrown for misuse of the registry (bad names, duplicates, missing schemas): a programming error, not a tool result.
 */
export class ToolRegistrationError extends Error {
  override name = 'ToolRegistrationError';
}

/**
 * Thrown by a tool for a transient failure worth retrying (a network blip, a busy service). The
 * activity fails and Temporal retries it under the tool's retry policy; every other error becomes
 * an error result at once.
 */
export class RetryableToolError extends Error {
  override name = 'RetryableToolError';
}
