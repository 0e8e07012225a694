/**
 * The worker's one config builder: everything the worker takes from its environment and its
 * config file (`durable-agents.json`, or the file `DURABLE_AGENTS_CONFIG` names), read once at
 * start and handed to the LLM layer and the activities. Nothing below the worker reads the
 * environment for them.
 */
import { SecretSet } from '../common/secrets';
import type { ActivityConfig } from '../activities';
import { credentialsOf, loadLlmConfig, type LlmConfigFile } from '../llm';
import { DEFAULT_TOKEN_BATCH_MS } from '../contracts/watch-topics';
import { SetupError } from '../connection/setup-error';
import { deploymentVersionOf, type DeploymentFlags, type WorkerDeploymentVersion } from './worker-deployment';
import { telemetryConfigOf, telemetrySecrets, type TelemetryConfig } from '../telemetry';
import { prebuiltBundlePath } from './workflow-code';

/** Environment variable: ms between two token batches (signals) of one streaming model call. */
export const TOKEN_BATCH_ENV = 'DURABLE_AGENTS_STREAM_BATCH_MS';

/** What a worker runs with. */
export interface WorkerConfig extends ActivityConfig {
  /**
   * The worker deployment version it polls as (`DURABLE_AGENTS_DEPLOYMENT` and
   * `DURABLE_AGENTS_BUILD_ID`); undefined for an unversioned worker.
   */
  deployment?: WorkerDeploymentVersion;
  /** Traces and metrics it exports (the OpenTelemetry variables, `DURABLE_AGENTS_METRICS_PORT`). */
  telemetry: TelemetryConfig;
  /** The prebuilt workflow bundle it loads (`DURABLE_AGENTS_WORKFLOW_BUNDLE`, else dist's); none: bundled at start. */
  workflowBundle?: string;
}

export interface WorkerConfigOptions {
  /** Default: the process environment. */
  env?: NodeJS.ProcessEnv;
  /** The LLM config file; `null` reads none. Default: `$DURABLE_AGENTS_CONFIG`, else `./durable-agents.json`. */
  file?: string | null;
  /** LLM config given inline, on top of the file (tests, embedding applications). */
  inline?: LlmConfigFile;
  /** `--deployment` and `--build-id`, over the environment's. */
  deployment?: DeploymentFlags;
  /** `--metrics-port`, over `DURABLE_AGENTS_METRICS_PORT`. */
  metricsPort?: string | number;
}

function tokenBatchMs(env: NodeJS.ProcessEnv): number {
  const raw = env[TOKEN_BATCH_ENV];
  if (raw === undefined || raw === '') return DEFAULT_TOKEN_BATCH_MS;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms < 50)
    throw new SetupError(`${TOKEN_BATCH_ENV}="${raw}" is not a number of milliseconds (50 or more).`);
  return ms;
}

/**
 * Builds the worker's config. Throws a one-line error for a config file or variable that cannot
 * be used (naming the file or variable).
 */
export function workerConfig(options: WorkerConfigOptions = {}): WorkerConfig {
  const env = options.env ?? process.env;
  const deployment = deploymentVersionOf(options.deployment, env);
  const llm = loadLlmConfig({ env, file: options.file, inline: options.inline });
  const telemetry = telemetryConfigOf(env, { metricsPort: options.metricsPort });
  const workflowBundle = prebuiltBundlePath(env);
  return {
    llm,
    secrets: new SecretSet([...credentialsOf(llm, env), ...telemetrySecrets(telemetry)]),
    tokenBatchMs: tokenBatchMs(env),
    telemetry,
    ...(deployment ? { deployment } : {}),
    ...(workflowBundle ? { workflowBundle } : {}),
  };
}
