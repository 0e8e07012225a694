import { AGENT_FAILURE } from '../contracts/failure-types';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type {
  ExecuteToolInput,
  ExecuteToolOutput,
  ToolActivities,
  ToolCatalog,
  ToolSelection,
} from '../contracts/tool-catalog';
import { RetryableToolError } from '../tools/define';
import { McpConfigError } from '../tools/mcp/mcp-config';
import { McpConnectionError } from '../tools/mcp/pool';
import type { ToolRegistry } from '../tools/registry';

function toFailure(err: unknown): unknown {
  if (err instanceof McpConfigError) return ApplicationFailure.nonRetryable(err.message, AGENT_FAILURE.mcpConfig);
  if (err instanceof McpConnectionError) return ApplicationFailure.retryable(err.message, AGENT_FAILURE.mcpConnection);
  if (err instanceof RetryableToolError) return ApplicationFailure.retryable(err.message, AGENT_FAILURE.retryableTool);
  return err;
}

/** How often a running tool call heartbeats (the SDK throttles what reaches the server). */
const HEARTBEAT_INTERVAL_MS = 1_000;

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * Heartbeats while `work` runs: cancellation only reaches an activity through heartbeats, and a
 * heartbeat timeout notices a dead worker long before the tool's own timeout. A local activity
 * has no heartbeats (the workflow task's timeout watches it) and gets cancellation without them.
 */
async function heartbeating<T>(ctx: Context | undefined, work: () => Promise<T>): Promise<T> {
  if (!ctx || ctx.info.isLocal) return work();
  const timer = setInterval(() => ctx.heartbeat(), HEARTBEAT_INTERVAL_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * The tool activities of a worker: `listTools` builds a run's catalogue, `executeTool` runs one
 * server tool call. Expected failures are error results; only infrastructure failures throw, as
 * typed `ApplicationFailure`s (a bad MCP config is non-retryable).
 */
export function createToolActivities(registry: ToolRegistry): ToolActivities {
  return {
    async listTools(selection: ToolSelection): Promise<ToolCatalog> {
      try {
        return await registry.catalog(selection);
      } catch (err) {
        throw toFailure(err);
      }
    },
    async executeTool(input: ExecuteToolInput): Promise<ExecuteToolOutput> {
      const ctx = activityContext();
      try {
        return await heartbeating(ctx, () => registry.execute(input, { signal: ctx?.cancellationSignal }));
      } catch (err) {
        throw toFailure(err);
      }
    },
  };
}
