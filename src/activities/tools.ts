import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ExecuteToolInput, ExecuteToolOutput, ToolActivities, ToolCatalog, ToolSelection } from '../shared/tool-catalog';
import { RetryableToolError } from '../tools/define';
import { McpConfigError } from '../tools/mcp/config';
import { McpConnectionError } from '../tools/mcp/pool';
import type { ToolRegistry } from '../tools/registry';

/** Failure types a workflow (or retry policy) can branch on. */
export const TOOL_FAILURE_TYPES = {
  config: 'McpConfigError',
  connection: 'McpConnectionError',
  retryable: 'RetryableToolError',
} as const;

function toFailure(err: unknown): unknown {
  if (err instanceof McpConfigError) return ApplicationFailure.nonRetryable(err.message, TOOL_FAILURE_TYPES.config);
  if (err instanceof McpConnectionError) return ApplicationFailure.retryable(err.message, TOOL_FAILURE_TYPES.connection);
  if (err instanceof RetryableToolError) return ApplicationFailure.retryable(err.message, TOOL_FAILURE_TYPES.retryable);
  return err;
}

function cancellationSignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
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
      try {
        return await registry.execute(input, { signal: cancellationSignal() });
      } catch (err) {
        throw toFailure(err);
      }
    },
  };
}
