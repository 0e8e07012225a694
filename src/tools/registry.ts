import { z } from 'zod';
import { errorText } from '../common/error-text';
import {
  DEFAULT_TOOL_MAX_OUTPUT_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  LOCAL_TOOL_MAX_TIMEOUT_MS,
  type ExecuteToolInput,
  type ExecuteToolOutput,
  type ToolCatalog,
  type ToolCatalogEntry,
  type ToolSelection,
  type ToolSource,
} from '../contracts/tool-catalog';
import { TOOL_NAME, idempotencyKey, isToolAllowed } from '../policy/tool-selection';
import {
  RetryableToolError,
  ToolRegistrationError,
  type FunctionSpec,
  type ToolDefinition,
  type ToolExecutionContext,
} from './define';
import { toolFingerprint } from './fingerprint';
import { capOutput, formatToolResult, toolLog } from './format-result';
import { callMeta, listMcpTools, mcpResultText, type McpListing, type McpRoute } from './mcp/catalog';
import type { NamedMcpServer } from './mcp/mcp-config';
import { McpConnectionError, McpPool } from './mcp/pool';
import type { RunMcpPolicy } from './mcp/run-config-policy';
import { serversOfRun, type WorkerMcpServers } from './mcp/run-servers';
import {
  DEFAULT_ARGUMENT_LIMITS,
  checkRawArguments,
  schemaFromJsonSchema,
  validateWithSchema,
  type ArgumentLimits,
} from './validate';

interface LocalTool {
  entry: ToolCatalogEntry;
  schema: z.ZodObject;
  execute: (args: Record<string, unknown>, ctx: ToolExecutionContext) => unknown;
}

type Resolved = { type: 'local'; tool: LocalTool } | { type: 'mcp'; route: McpRoute };

export interface ToolRegistryOptions {
  /** Shared MCP connections; one per worker process. Created when absent. */
  mcpPool?: McpPool;
  /** The MCP servers of the worker's operator, `${VAR}` already expanded: a run names those it uses (`mcpServers`). */
  mcpServers?: NamedMcpServer[];
  /** Whether and how runs may bring their own MCP configs; absent: `mcpConfig` and `mcpConfigPath` are refused. */
  runMcpConfigs?: RunMcpPolicy;
  argumentLimits?: Partial<ArgumentLimits>;
}

/**
 * Tools of a worker: registered definitions, built-ins, and the tools of the MCP servers a run
 * names (the worker's own, or its own config where the worker allows it). `catalog` gives what a
 * run pins; `execute` validates and runs one call and turns every expected failure into an error result.
 */
export class ToolRegistry {
  private readonly local = new Map<string, LocalTool>();
  readonly mcpPool: McpPool;
  private readonly limits: ArgumentLimits;
  private readonly mcp: WorkerMcpServers;

  constructor(options: ToolRegistryOptions = {}) {
    this.mcpPool = options.mcpPool ?? new McpPool();
    this.mcp = { servers: options.mcpServers ?? [], runConfigs: options.runMcpConfigs };
    this.limits = { ...DEFAULT_ARGUMENT_LIMITS, ...options.argumentLimits };
  }

  /** Registers one tool. Names must suit every provider (`[a-zA-Z0-9_-]{1,64}`) and be unique. */
  register<S extends z.ZodObject>(definition: ToolDefinition<S>, source: ToolSource = 'registered'): this {
    const { name, description } = definition;
    if (!TOOL_NAME.test(name)) throw new ToolRegistrationError(`Tool name "${name}" must match ${TOOL_NAME}.`);
    if (this.local.has(name)) throw new ToolRegistrationError(`Tool "${name}" is already registered.`);
    if (!(definition.parameters instanceof z.ZodObject))
      throw new ToolRegistrationError(`Tool "${name}" needs a z.object(...) parameters schema.`);
    const schema = definition.parameters.strict();
    const parameters = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete parameters.$schema;
    const timeoutMs = definition.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const sideEffects = definition.sideEffects ?? false;
    const entry: ToolCatalogEntry = {
      name,
      description,
      parameters,
      mode: definition.mode ?? 'server',
      timeoutMs,
      retry: definition.retry,
      sideEffects,
      local: definition.local ?? (!sideEffects && timeoutMs <= LOCAL_TOOL_MAX_TIMEOUT_MS),
      ...(definition.dedupe === false ? { dedupe: false as const } : {}),
      maxOutputChars: definition.maxOutputChars ?? DEFAULT_TOOL_MAX_OUTPUT_CHARS,
      source,
      fingerprint: toolFingerprint({ name, description, parameters }),
    };
    this.local.set(name, { entry, schema, execute: definition.execute as LocalTool['execute'] });
    return this;
  }

  /**
   * Registers methods of an object or functions of a module as `<prefix><name>`, each with the
   * zod schema and description from `specs` (discovery, with schemas in place of
   * signature inference). Every spec must name a function of `target`. Returns the tool names.
   */
  registerFunctions(target: object, specs: Record<string, FunctionSpec>, options: { prefix?: string } = {}): string[] {
    const names: string[] = [];
    for (const [key, spec] of Object.entries(specs)) {
      const fn = (target as Record<string, unknown>)[key];
      if (typeof fn !== 'function')
        throw new ToolRegistrationError(`registerFunctions: "${key}" is not a function of the target.`);
      const name = `${options.prefix ?? ''}${key}`;
      this.register({
        ...spec,
        name,
        execute: (args, ctx) => (fn as (a: unknown, c: unknown) => unknown).call(target, args, ctx),
      });
      names.push(name);
    }
    return names;
  }

  /** The registered and built-in tools (no MCP). */
  localEntries(): ToolCatalogEntry[] {
    return [...this.local.values()].map((t) => t.entry);
  }

  private async mcpListing(selection: ToolSelection): Promise<McpListing> {
    const servers = await serversOfRun(selection, this.mcp);
    if (servers.length === 0) return { routes: [], unavailable: [] };
    return listMcpTools(this.mcpPool, servers, new Set(this.local.keys()));
  }

  /** The catalogue a run pins: local tools and the tools of reachable MCP servers, filtered by allow/deny. */
  async catalog(selection: ToolSelection): Promise<ToolCatalog> {
    const listing = await this.mcpListing(selection);
    const tools = [...this.localEntries(), ...listing.routes.map((r) => r.entry)].filter((t) =>
      isToolAllowed(t.name, selection),
    );
    return listing.unavailable.length > 0 ? { tools, unavailableServers: listing.unavailable } : { tools };
  }

  private async resolve(name: string, selection: ToolSelection): Promise<Resolved | undefined> {
    const tool = this.local.get(name);
    if (tool) return { type: 'local', tool };
    const listing = await this.mcpListing(selection);
    const route = listing.routes.find((r) => r.entry.name === name);
    if (route) return { type: 'mcp', route };
    // The tool may belong to a server that is down right now: fail the attempt so it is retried.
    if (listing.unavailable.length > 0) {
      const down = listing.unavailable.map((u) => `${u.name} (${u.error})`).join('; ');
      throw new McpConnectionError(`Tool "${name}" was not found and MCP servers are unreachable: ${down}`);
    }
    return undefined;
  }

  /**
   * Runs one call. Unknown or disallowed tools, a changed fingerprint, invalid arguments and
   * exceptions of the tool all give `isError: true` results, with no execution for the first
   * four. Only infrastructure failures throw (an MCP server that cannot be reached, a bad MCP
   * config, a {@link RetryableToolError}), so the activity is retried.
   */
  async execute(
    input: ExecuteToolInput | (Omit<ExecuteToolInput, 'args'> & { args: unknown }),
    options: { signal?: AbortSignal } = {},
  ): Promise<ExecuteToolOutput> {
    const started = performance.now();
    const done = (content: string, isError: boolean, maxChars = DEFAULT_TOOL_MAX_OUTPUT_CHARS): ExecuteToolOutput => {
      const capped = capOutput(content, maxChars);
      return {
        content: capped.content,
        isError,
        ...(capped.truncated ? { truncated: true } : {}),
        durationMs: Math.round(performance.now() - started),
      };
    };
    const { name, selection } = input;
    if (!isToolAllowed(name, selection)) return done(`Tool "${name}" is not allowed in this run.`, true);
    let resolved = await this.resolve(name, selection);
    if (resolved?.type === 'mcp' && input.fingerprint && resolved.route.entry.fingerprint !== input.fingerprint) {
      await this.mcpPool.listTools(resolved.route.server, { refresh: true });
      resolved = await this.resolve(name, selection);
    }
    if (!resolved) {
      const known = (await this.catalog(selection)).tools.map((t) => t.name).join(', ') || '(none)';
      return done(`Unknown tool "${name}". Available tools: ${known}`, true);
    }
    const entry = resolved.type === 'local' ? resolved.tool.entry : resolved.route.entry;
    if (input.fingerprint && entry.fingerprint !== input.fingerprint) {
      return done(
        `Tool "${name}" changed since this run's tool catalogue was pinned (its description or parameters ` +
          `differ); it was not run.`,
        true,
      );
    }
    const raw = checkRawArguments(input.args, this.limits);
    if (!raw.ok) return done(`Tool "${name}": ${raw.error}`, true);
    // The tool's own deadline: tools that honour the signal stop, and the result does not wait on those that do not.
    const timeoutMs = input.timeoutMs ?? entry.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const key = idempotencyKey(input.runId, input.toolCallId);

    if (resolved.type === 'mcp') {
      const { route } = resolved;
      const valid = validateWithSchema(schemaFromJsonSchema(route.inputSchema), raw.value);
      if (!valid.ok) return done(`Tool "${name}": ${valid.error}`, true);
      const result = await this.mcpPool.callTool(
        route.server,
        { name: route.toolName, arguments: valid.value, meta: callMeta(input.context ?? selection.context, key) },
        { timeoutMs, signal },
      );
      return done(
        mcpResultText(result) || (result.isError ? 'The tool failed without a message.' : formatToolResult(undefined)),
        result.isError === true,
        entry.maxOutputChars,
      );
    }

    const valid = validateWithSchema(resolved.tool.schema, raw.value);
    if (!valid.ok) return done(`Tool "${name}": ${valid.error}`, true);
    const lines: string[] = [];
    const logged = (out: ExecuteToolOutput): ExecuteToolOutput =>
      lines.length > 0 ? { ...out, log: toolLog(lines) } : out;
    const ctx: ToolExecutionContext = {
      runId: input.runId,
      toolCallId: input.toolCallId,
      idempotencyKey: key,
      context: input.context ?? selection.context ?? {},
      workspaceRoot: selection.workspaceRoot,
      signal,
      log: (line) => void lines.push(String(line)),
    };
    try {
      const value = await untilAborted(
        Promise.resolve(resolved.tool.execute(valid.value as Record<string, unknown>, ctx)),
        signal,
      );
      return logged(done(formatToolResult(value), false, entry.maxOutputChars));
    } catch (err) {
      if (err instanceof RetryableToolError) throw err;
      if (deadline.aborted) return logged(done(`Tool "${name}" timed out after ${timeoutMs} ms.`, true));
      return logged(done(`Tool "${name}" failed: ${errorText(err)}`, true, entry.maxOutputChars));
    }
  }

  /** Closes MCP connections. */
  close(): Promise<void> {
    return this.mcpPool.close();
  }
}

/** Settles with the promise, or rejects as soon as the signal aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}
