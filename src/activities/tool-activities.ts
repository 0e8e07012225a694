import { AGENT_FAILURE } from '../contracts/failure-types';
import { ApplicationFailure } from '@temporalio/activity';
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
import { activityContext, heartbeating } from './heartbeat';

/** Throws `err` again, as a typed failure when it is one of the tools' known infrastructure errors. */
function rethrow(err: unknown): never {
  if (err instanceof McpConfigError) throw ApplicationFailure.nonRetryable(err.message, AGENT_FAILURE.mcpConfig);
  if (err instanceof McpConnectionError) throw ApplicationFailure.retryable(err.message, AGENT_FAILURE.mcpConnection);
  if (err instanceof RetryableToolError) throw ApplicationFailure.retryable(err.message, AGENT_FAILURE.retryableTool);
  throw err;
}

/**
 * The tool activities of a worker: `listTools` builds a run's catalogue, `executeTool` runs one
 * server tool call. Expected failures are error results; only infrastructure failures throw, as
 * typed `ApplicationFailure`s (a bad MCP config is non-retryable).
 */
export function createToolActivities(registry: ToolRegistry): ToolActivities {
  return {
    // Opening MCP connections can take a while: heartbeats notice a dead worker meanwhile.
    listTools: heartbeating((selection: ToolSelection): Promise<ToolCatalog> =>
      registry.catalog(selection).catch(rethrow),
    ),
    executeTool: heartbeating((input: ExecuteToolInput): Promise<ExecuteToolOutput> =>
      registry.execute(input, { signal: activityContext()?.cancellationSignal }).catch(rethrow),
    ),
  };
}
