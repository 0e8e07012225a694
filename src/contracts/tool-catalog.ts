/**
 * The tool contract between workflow and activities. Plain JSON only: catalogues live in workflow
 * state (pinned per run) and every value here crosses the activity boundary.
 */
import type { ApprovalRule } from './approval';

/**
 * How a tool call is carried out.
 * - `server`: runs in a worker activity.
 * - `client`: the workflow waits for the caller to submit the result.
 * - `approval`: a server tool that runs only after a human approves the exact arguments.
 * - `agent`: a sub-agent; the workflow runs it as a child workflow.
 * - `workflow`: answered by the workflow from its own state (the plan tool, `update_plan`).
 */
export type ToolMode = 'server' | 'client' | 'approval' | 'agent' | 'workflow';

export type ToolSource = 'builtin' | 'registered' | 'mcp' | 'run' | 'agent';

/** Retry policy of one tool's activity. Absent fields take the defaults of {@link DEFAULT_TOOL_RETRY}. */
export interface ToolRetry {
  maximumAttempts?: number;
  initialIntervalMs?: number;
  /** When true the tool is never retried (a failure becomes an error result at once). */
  nonRetryable?: boolean;
}

/** One tool as a run sees it: what the model is shown plus how the workflow should execute it. */
export interface ToolCatalogEntry {
  name: string;
  description: string;
  /** JSON Schema of the arguments object, as shown to the model. */
  parameters: Record<string, unknown>;
  mode: ToolMode;
  /** Start-to-close timeout of one attempt. */
  timeoutMs: number;
  retry?: ToolRetry;
  /** Side-effecting tools receive an idempotency key (`runId:toolCallId`) stable across retries. */
  sideEffects: boolean;
  /**
   * Quick and without side effects: the workflow may run it as a local activity, on its own worker
   * inside the workflow task (one history event instead of three, no second workflow task per turn).
   */
  local?: boolean;
  /** False: an identical later call runs again instead of reusing the earlier result. */
  dedupe?: false;
  /** Result text longer than this is cut before it enters the conversation. */
  maxOutputChars: number;
  source: ToolSource;
  /** MCP server name, for `source: 'mcp'`. */
  server?: string;
  /** Hash of name + description + parameters; execution refuses a tool whose fingerprint changed. */
  fingerprint: string;
}

export interface ToolCatalog {
  tools: ToolCatalogEntry[];
  /**
   * MCP servers that were configured but could not be reached when the catalogue was built.
   * `retryable` is false when trying again cannot help (its command was not found, a bad config).
   */
  unavailableServers?: { name: string; error: string; retryable?: boolean }[];
}

/**
 * One server of an `mcpServers` config: `command`/`args`/`env`/`cwd` for stdio, `url`/`headers` for Streamable HTTP.
 */
export interface McpServerSpec {
  type?: 'stdio' | 'http' | 'streamable-http' | 'streamableHttp';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  disabled?: boolean;
}

/** The widely used `mcpServers` config format. */
export interface McpServersConfig {
  mcpServers: Record<string, McpServerSpec>;
}

/** Which tools a run may use. Sent with every tool activity call so the worker applies the same rules. */
export interface ToolSelection {
  /** Tool names or prefix patterns ending in `*` (`fs_*`). Absent = every tool. */
  allow?: string[];
  /** Same patterns; deny wins over allow. */
  deny?: string[];
  /**
   * Names of the worker's own MCP servers (`mcpServers` in its config file) whose tools the run may
   * use. A name the worker does not declare fails the run in its first step.
   */
  mcpServers?: string[];
  /**
   * Path of an `mcpServers` JSON config file the run brings, read on the worker under its
   * `runMcpConfigs.configDir` (relative paths start there). Refused unless the worker opts in.
   */
  mcpConfigPath?: string;
  /**
   * An `mcpServers` config the run brings (the CLI's `--mcp FILE` sends it). Refused unless the
   * worker opts in (`runMcpConfigs`), and then only servers on its URL and command lists. Every
   * value is taken as written (`${VAR}` is not expanded) and is stored in workflow history. Used
   * instead of `mcpConfigPath` when both are set.
   */
  mcpConfig?: McpServersConfig;
  /** Root directory the built-in file tools are jailed to. Without it the file tools refuse every path. */
  workspaceRoot?: string;
  /** Tool names or patterns that must be approved by a human before they run (overrides the tool's own mode). */
  approve?: string[];
  /** Rules that ask for approval of a call by its arguments (`policy/approval-rules.ts`). */
  approvals?: ApprovalRule[];
  /** The run's context (`currentResourceId` / `currentTaskId`), given to every tool call of the run. */
  context?: ToolCallContext;
  /** Client-mode tools the run declares itself; the worker needs no registration for them. */
  clientTools?: RunClientTool[];
}

/**
 * A tool the run declares and the calling application answers (`submitToolResult`, the CLI's
 * `tool-result`). It never runs on a worker; its name must not be one of the worker's tools.
 */
export interface RunClientTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object, as shown to the model. */
  parameters: Record<string, unknown>;
}

/** Context a tool call carries. MCP tools receive it in `_meta` of the call request. */
export interface ToolCallContext {
  resourceId?: string;
  taskId?: string;
}

export interface ExecuteToolInput {
  /** Workflow run id; with `toolCallId` it forms the idempotency key. */
  runId: string;
  toolCallId: string;
  name: string;
  args: Record<string, unknown>;
  /** Overrides `selection.context` for this call. */
  context?: ToolCallContext;
  /** Fingerprint from the pinned catalogue. When it no longer matches, the call is refused with an error result. */
  fingerprint?: string;
  selection: ToolSelection;
  /** This run's timeout for the call, in place of the tool's own `timeoutMs`. */
  timeoutMs?: number;
}

export interface ExecuteToolOutput {
  content: string;
  isError: boolean;
  truncated?: boolean;
  durationMs: number;
  /** The lines the tool logged (`ToolExecutionContext.log`), joined; absent when it logged none. */
  log?: string;
}

/** The most characters of a call's log kept; a longer log keeps its last lines. */
export const MAX_TOOL_LOG_CHARS = 16_000;

export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
/**
 * Longest timeout of a tool that runs as a local activity by default (when it has no side effects):
 * it fits in a workflow task, so a dead worker costs at most that long before the call runs again.
 */
export const LOCAL_TOOL_MAX_TIMEOUT_MS = 10_000;
export const DEFAULT_TOOL_MAX_OUTPUT_CHARS = 32_000;
export const DEFAULT_TOOL_RETRY: Required<Pick<ToolRetry, 'maximumAttempts' | 'initialIntervalMs'>> = {
  maximumAttempts: 3,
  initialIntervalMs: 1_000,
};
/**
 * Extra start-to-close time of a tool activity over the tool's own `timeoutMs`: the worker stops
 * waiting on the tool at `timeoutMs` and answers with a timeout error result, which is better for
 * the model than an activity timeout followed by a retry.
 */
export const TOOL_ACTIVITY_GRACE_MS = 5_000;
/** Upper bound of server tool calls of one turn running at the same time. */
export const DEFAULT_TOOL_PARALLELISM = 4;

/** The tool activities a workflow calls (implemented by `createToolActivities` in `src/activities/tools.ts`). */
export interface ToolActivities {
  /** Builds the catalogue a run pins: built-ins, registered tools and MCP tools, filtered by the selection. */
  listTools(selection: ToolSelection): Promise<ToolCatalog>;
  /** Runs one server tool call. Expected failures come back as `isError: true`; only infrastructure failures throw. */
  executeTool(input: ExecuteToolInput): Promise<ExecuteToolOutput>;
}
