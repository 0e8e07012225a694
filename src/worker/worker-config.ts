/**
 * The worker's one config builder: everything the worker takes from its environment and its
 * config file (`durable-agents.json`, or the file `DURABLE_AGENTS_CONFIG` names), read once at
 * start and handed to the LLM layer and the activities. Nothing below the worker reads the
 * environment for them.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LogLevel } from '@temporalio/worker';
import { SecretSet } from '../common/secrets';
import type { ActivityConfig } from '../activities';
import { configParts, credentialsOf, loadLlmConfig, type ConfigPart, type LlmConfigFile } from '../llm/llm-config';
import { DEFAULT_TOKEN_BATCH_MS } from '../contracts/watch-topics';
import { SetupError } from '../connection/setup-error';
import { DEFAULT_STORE_DIR, STORE_DIR_ENV, STORE_URL_ENV, type StoreConfig } from '../store';
import { McpConfigError } from '../tools/mcp/mcp-config';
import { declaredMcp } from '../tools/mcp/worker-servers';
import { MCP_COMMANDS_ENV, MCP_COMMANDS_REPLACED, type ToolsConfig } from '../tools/tools-config';
import { deploymentVersionOf, type DeploymentFlags, type WorkerDeploymentVersion } from './worker-deployment';
import { telemetryConfigOf, telemetrySecrets, type TelemetryConfig } from '../telemetry/telemetry-config';
import { prebuiltBundlePath } from './workflow-code';
import { decimalIn } from '../common/decimal';

/** Environment variable: least ms between two writes of one streaming model call's pieces to its run's token stream. */
export const TOKEN_BATCH_ENV = 'DURABLE_AGENTS_STREAM_BATCH_MS';

/** Environment variable: the SDK log level of workers (`TRACE` … `ERROR`). */
export const LOG_LEVEL_ENV = 'DURABLE_AGENTS_LOG_LEVEL';

/** What a worker runs with. */
export interface WorkerConfig extends ActivityConfig {
  /**
   * The worker deployment version it polls as (`DURABLE_AGENTS_DEPLOYMENT` and
   * `DURABLE_AGENTS_BUILD_ID`); undefined for an unversioned worker.
   */
  deployment?: WorkerDeploymentVersion;
  /** Where conversations are kept (`DURABLE_AGENTS_STORE_URL`, else `DURABLE_AGENTS_STORE_DIR`). */
  store: StoreConfig;
  /** Traces and metrics it exports (the OpenTelemetry variables, `DURABLE_AGENTS_METRICS_PORT`). */
  telemetry: TelemetryConfig;
  /** The prebuilt workflow bundle it loads (`DURABLE_AGENTS_WORKFLOW_BUNDLE`, else dist's); none: bundled at start. */
  workflowBundle?: string;
}

export interface WorkerConfigOptions {
  /** Default: the process environment. */
  env?: NodeJS.ProcessEnv;
  /** The directory a relative `DURABLE_AGENTS_STORE_DIR` is resolved against. Default: the working directory. */
  cwd?: string;
  /** The LLM config file; `null` reads none. Default: `$DURABLE_AGENTS_CONFIG`, else `./durable-agents.json`. */
  file?: string | null;
  /** LLM config given inline, on top of the file (tests, embedding applications). */
  inline?: LlmConfigFile;
  /** `--deployment` and `--build-id`, over the environment's. */
  deployment?: DeploymentFlags;
  /** `--metrics-port`, over `DURABLE_AGENTS_METRICS_PORT`. */
  metricsPort?: string | number;
  /** `--metrics-bind`, over `DURABLE_AGENTS_METRICS_BIND` (default: this machine only). */
  metricsBind?: string;
}

function tokenBatchMs(env: NodeJS.ProcessEnv): number {
  const raw = env[TOKEN_BATCH_ENV];
  if (raw === undefined || raw === '') return DEFAULT_TOKEN_BATCH_MS;
  const ms = decimalIn(raw, { what: 'a number of milliseconds', min: 0 });
  if (ms === undefined)
    throw new SetupError(`${TOKEN_BATCH_ENV}="${raw}" is not a number of milliseconds (0 or more).`);
  return ms;
}

/**
 * Where conversations are kept: `DURABLE_AGENTS_STORE_URL`, else the file store in
 * `DURABLE_AGENTS_STORE_DIR` (default `.durable-agents/store`) resolved against `cwd`. The worker,
 * and the CLI commands and codec server that read what workers write, take it from here.
 */
export function storeConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): StoreConfig {
  const url = env[STORE_URL_ENV]?.trim();
  return { ...(url ? { url } : {}), dir: path.resolve(cwd, env[STORE_DIR_ENV] || DEFAULT_STORE_DIR) };
}

/**
 * The tools' settings: the MCP servers of the config file with `${VAR}` expanded from `env` (each
 * value taken is a secret), whether runs may bring their own, web search.
 */
function toolsConfig(env: NodeJS.ProcessEnv, parts: ConfigPart[], secrets: string[]): ToolsConfig {
  if (env[MCP_COMMANDS_ENV]) throw new SetupError(MCP_COMMANDS_REPLACED);
  let mcp: ReturnType<typeof declaredMcp>;
  try {
    mcp = declaredMcp(parts, { env: { ...env }, onSecret: (value) => secrets.push(value) });
  } catch (err) {
    if (err instanceof McpConfigError) throw new SetupError(err.message);
    throw err;
  }
  const dir = mcp.runConfigs?.configDir;
  if (dir && !fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new SetupError(`runMcpConfigs.configDir ${dir} is not a directory.`);
  const braveKey = env.BRAVE_SEARCH_API_KEY;
  return {
    mcpServers: [...mcp.servers],
    ...(mcp.runConfigs ? { runMcpConfigs: mcp.runConfigs } : {}),
    ...(braveKey ? { braveSearch: { apiKey: braveKey, baseUrl: env.BRAVE_SEARCH_BASE_URL } } : {}),
  };
}

/** The SDK log level `DURABLE_AGENTS_LOG_LEVEL` asks for; undefined when it names none. */
export function workerLogLevel(env: NodeJS.ProcessEnv = process.env): LogLevel | undefined {
  const requested = env[LOG_LEVEL_ENV]?.toUpperCase();
  const levels: LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
  return levels.find((level) => level === requested);
}

/**
 * Builds the worker's config. Throws a one-line error for a config file or variable that cannot
 * be used (naming the file or variable).
 */
export function workerConfig(options: WorkerConfigOptions = {}): WorkerConfig {
  const env = options.env ?? process.env;
  const deployment = deploymentVersionOf(options.deployment, env);
  const parts = configParts({ env, file: options.file, inline: options.inline });
  const llm = loadLlmConfig({ env, parts });
  const telemetry = telemetryConfigOf(env, options);
  const workflowBundle = prebuiltBundlePath(env);
  const mcpSecrets: string[] = [];
  const tools = toolsConfig(env, parts, mcpSecrets);
  return {
    llm,
    secrets: new SecretSet([...credentialsOf(llm, env), ...telemetrySecrets(telemetry), ...mcpSecrets]),
    tokenBatchMs: tokenBatchMs(env),
    tools,
    store: storeConfig(env, options.cwd),
    telemetry,
    ...(deployment ? { deployment } : {}),
    ...(workflowBundle ? { workflowBundle } : {}),
  };
}
