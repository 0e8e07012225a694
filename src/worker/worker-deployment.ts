/**
 * Worker Deployment Versioning: which version of which deployment a worker is, read from its flags
 * and environment and checked before it connects. A versioned worker takes the runs routed to its
 * version; a pinned run stays on the version it began on until it ends (docs/upgrades.md).
 */
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { SetupError } from '../connection/setup-error';

/** Environment variable: the worker deployment's name (same for every version of the worker). */
export const DEPLOYMENT_ENV = 'DURABLE_AGENTS_DEPLOYMENT';
/** Environment variable: this worker's build id within its deployment. */
export const BUILD_ID_ENV = 'DURABLE_AGENTS_BUILD_ID';

/** One version of a worker deployment. */
export interface WorkerDeploymentVersion {
  deploymentName: string;
  buildId: string;
}

/** What a flag gave; `undefined` means not given (the environment is read), `''` is a given but empty value. */
export interface DeploymentFlags {
  /** `--deployment` */
  deployment?: string;
  /** `--build-id` */
  buildId?: string;
}

/** The longest build id Temporal accepts; deployment names are held to the same. */
export const MAX_VERSION_PART_LENGTH = 255;

/**
 * A deployment name: letters, digits, `-`, `_` and `/`, starting with a letter or digit. Temporal
 * refuses `.` and `:` (its version-id separators) and a leading `__` (reserved).
 */
const DEPLOYMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_/-]*$/;
/**
 * A build id: letters, digits, `-`, `_`, `.` and `+` (semantic versions, commit hashes, dates),
 * starting with a letter or digit. Temporal refuses a leading `__`.
 */
const BUILD_ID = /^[A-Za-z0-9][A-Za-z0-9_.+-]*$/;

interface Part {
  value: string;
  /** Where it came from, as the user would type it. */
  source: string;
}

function pick(flag: string | undefined, flagName: string, env: NodeJS.ProcessEnv, envName: string): Part | undefined {
  if (flag !== undefined) return { value: flag, source: flagName };
  const raw = env[envName];
  // An empty variable is an unset one (compose passes `${VAR:-}`).
  if (raw === undefined || raw.trim() === '') return undefined;
  return { value: raw.trim(), source: envName };
}

function check(part: Part, what: string, pattern: RegExp, allowed: string): void {
  const shown = JSON.stringify(part.value);
  if (part.value === '') throw new SetupError(`${part.source} is empty: give the worker's ${what}.`);
  if (part.value.length > MAX_VERSION_PART_LENGTH)
    throw new SetupError(
      `${part.source} is ${part.value.length} characters long: a ${what} has at most ${MAX_VERSION_PART_LENGTH}.`,
    );
  if (!pattern.test(part.value))
    throw new SetupError(
      `${part.source}=${shown} is not a valid ${what}: use ${allowed}, starting with a letter or digit.`,
    );
}

/**
 * The worker's deployment version from `--deployment`/`--build-id` over `DURABLE_AGENTS_DEPLOYMENT`/
 * `DURABLE_AGENTS_BUILD_ID`; undefined when neither is given (an unversioned worker). Throws a
 * one-line {@link SetupError} for one without the other or a value Temporal would refuse.
 */
export function deploymentVersionOf(
  flags: DeploymentFlags = {},
  env: NodeJS.ProcessEnv,
): WorkerDeploymentVersion | undefined {
  const name = pick(flags.deployment, '--deployment', env, DEPLOYMENT_ENV);
  const build = pick(flags.buildId, '--build-id', env, BUILD_ID_ENV);
  if (!name && !build) return undefined;
  if (!build)
    throw new SetupError(
      `${name!.source} names a worker deployment but no build id is given: pass --build-id or set ${BUILD_ID_ENV}.`,
    );
  if (!name)
    throw new SetupError(
      `${build.source} gives a build id but no worker deployment: pass --deployment or set ${DEPLOYMENT_ENV}.`,
    );
  check(name, 'deployment name', DEPLOYMENT_NAME, 'letters, digits, -, _ and /');
  check(build, 'build id', BUILD_ID, 'letters, digits, -, _, . and +');
  return { deploymentName: name.value, buildId: build.value };
}

/**
 * The SDK's worker options for a versioned worker. Runs are pinned by default: a run ends on the
 * version it began on, so a new build never replays an old run's history.
 */
export function workerDeploymentOptions(version: WorkerDeploymentVersion): WorkerDeploymentOptions {
  return { version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' };
}

/** `name:buildId`, as the Temporal CLI and Web UI show a version. */
export const versionLabel = (version: WorkerDeploymentVersion): string =>
  `${version.deploymentName}:${version.buildId}`;
