/**
 * Workflow-side helpers for the tool activities. Every server tool call is its own `executeTool`
 * activity whose summary names the tool, so the Temporal UI shows which tool ran, with the
 * timeout and retry policy of that tool's catalogue entry.
 */
import { ActivityFailure, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RetryPolicy } from '@temporalio/common';
import {
  DEFAULT_TOOL_PARALLELISM,
  DEFAULT_TOOL_RETRY,
  TOOL_ACTIVITY_GRACE_MS,
  TOOL_HEARTBEAT_TIMEOUT_MS,
  type ExecuteToolInput,
  type ExecuteToolOutput,
  type ToolActivities,
  type ToolCatalog,
  type ToolCatalogEntry,
  type ToolSelection,
  findTool,
  unknownToolResult,
} from '../shared/tool-catalog';

const LIST_TOOLS_TIMEOUT = '2 minutes';

/** Builds the catalogue for a run. Call it once at the start of a run and keep the result in workflow state. */
export function listTools(selection: ToolSelection): Promise<ToolCatalog> {
  const { listTools: list } = proxyActivities<ToolActivities>({
    startToCloseTimeout: LIST_TOOLS_TIMEOUT,
    retry: { maximumAttempts: 5 },
    summary: 'list tools',
  });
  return list(selection);
}

/** A call's input; `runId` defaults to the current run's id (half of the idempotency key). */
export type ToolCallInput = Omit<ExecuteToolInput, 'name' | 'fingerprint' | 'runId'> & { runId?: string };

function retryPolicy(entry: ToolCatalogEntry): RetryPolicy {
  const retry = entry.retry ?? {};
  return {
    maximumAttempts: retry.nonRetryable ? 1 : (retry.maximumAttempts ?? DEFAULT_TOOL_RETRY.maximumAttempts),
    initialInterval: retry.initialIntervalMs ?? DEFAULT_TOOL_RETRY.initialIntervalMs,
  };
}

/**
 * Runs one server tool call as its own activity (summary `tool: <name>`), with the entry's
 * timeout and retry policy. The fingerprint of the pinned entry travels with the call, so a tool
 * whose description or schema changed since the catalogue was pinned is refused.
 *
 * Never throws for tool failures: when every attempt failed, the result is an error result the
 * model can read. Cancellation of the workflow (or of the surrounding scope) still propagates.
 */
export async function executeToolCall(entry: ToolCatalogEntry, input: ToolCallInput): Promise<ExecuteToolOutput> {
  const { executeTool } = proxyActivities<ToolActivities>({
    startToCloseTimeout: entry.timeoutMs + TOOL_ACTIVITY_GRACE_MS,
    heartbeatTimeout: TOOL_HEARTBEAT_TIMEOUT_MS,
    retry: retryPolicy(entry),
    summary: `tool: ${entry.name}`,
  });
  try {
    return await executeTool({
      ...input,
      runId: input.runId ?? workflowInfo().runId,
      name: entry.name,
      fingerprint: entry.fingerprint,
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    if (err instanceof ActivityFailure) {
      const cause = err.cause?.message ?? err.message;
      return { content: `Tool "${entry.name}" failed: ${cause}`, isError: true, durationMs: 0 };
    }
    throw err;
  }
}

/** One call of a turn, as the model made it. */
export type ToolCallRequest = ToolCallInput & { name: string };

/**
 * Runs the independent server tool calls of one turn (already approved where approval was
 * needed) in parallel, at most `parallelism` at a time, and returns their results in the order of
 * `calls`. A name missing from the pinned catalogue gets an error result without any activity.
 */
export async function executeToolCalls(
  catalog: ToolCatalog,
  calls: readonly ToolCallRequest[],
  parallelism: number = DEFAULT_TOOL_PARALLELISM,
): Promise<ExecuteToolOutput[]> {
  const results: ExecuteToolOutput[] = new Array(calls.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < calls.length) {
      const index = next++;
      const { name, ...input } = calls[index];
      const entry = findTool(catalog, name);
      results[index] = entry ? await executeToolCall(entry, input) : unknownToolResult(catalog, name);
    }
  };
  const lanes = Math.max(1, Math.min(parallelism, calls.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return results;
}

export interface ToolCallsWorkflowInput {
  /** The pinned catalogue the calls are checked against. */
  catalog: ToolCatalog;
  calls: ToolCallRequest[];
  parallelism?: number;
}

/** Runs tool calls durably outside an agent loop: each call is its own activity, retried under its tool's policy. */
export async function toolCallsWorkflow(input: ToolCallsWorkflowInput): Promise<ExecuteToolOutput[]> {
  return executeToolCalls(input.catalog, input.calls, input.parallelism);
}
