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

function toFailure(err: unknown): unknown {
  if (err instanceof McpConfigError) return ApplicationFailure.nonRetryable(err.message, AGENT_FAILURE.mcpConfig);
  if (err instanceof McpConnectionError) return ApplicationFailure.retryable(err.message, AGENT_FAILURE.mcpConnection);
  if (err instanceof RetryableToolError) return ApplicationFailure.retryable(err.message, AGENT_FAILURE.retryableTool);
  return err;
}

/**
 * The tool activities of a worker: `listTools` builds a run's catalogue, `executeTool` runs one
 * server tool call. Expected failures are error results; only infrastructure failures throw, as
 * typed `ApplicationFailure`s (a bad MCP config is non-retryable).
 */
export function createToolActivities(registry: ToolRegistry): ToolActivities {
  return {
    // Opening MCP connections can take a while: heartbeats notice a dead worker meanwhile.
    listTools: heartbeating(async (selection: ToolSelection): Promise<ToolCatalog> => {
      try {
        return await registry.catalog(selection);
      } catch (err) {
        throw toFailure(err);
      }
    }),
    executeTool: heartbeating(async (input: ExecuteToolInput): Promise<ExecuteToolOutput> => {
      try {
        return await registry.execute(input, { signal: activityContext()?.cancellationSignal });
      } catch (err) {
        throw toFailure(err);
      }
    }),
  };
}
