/**
 * Which server, namespace and task queue a command talks to (flags over the environment), the
 * line that says so with `--verbose`, and the Web UI link of a run.
 */
import { AgentClient } from '../client';
import type { KindEdge } from '../kinds';
import type { ModelInfo } from '../contracts/model-info';
import { cliConfig } from './cli-config';
import { cliDefaults } from './start-options';
import { connectClient, connectionSettingsFromEnv, type ConnectionSettings } from '../connection/connection-settings';
import { currentTracing } from '../telemetry/current-tracing';
import type { Client, WorkflowClientInterceptor } from '@temporalio/client';
import { runUiUrl, webUiOf } from '../server/web-ui';
import { printNotice } from './terminal-text';

/** Temporal's client interceptor of a traced command, loaded only then: other commands load none of OpenTelemetry. */
function tracingInterceptors(): WorkflowClientInterceptor[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tracing = require('../telemetry/temporal-tracing') as typeof import('../telemetry/temporal-tracing');
  return tracing.tracingClientInterceptors();
}

/** The program's own options, given before or after the command. */
export interface GlobalOptions {
  address?: string;
  namespace?: string;
  taskQueue?: string;
  /** Say on stderr which server a command talks to. */
  verbose?: boolean;
}

/** Connection settings from the environment, with the flags' values over them. */
export function settingsOf(globals: GlobalOptions, env: NodeJS.ProcessEnv): ConnectionSettings {
  const settings = connectionSettingsFromEnv(env);
  if (globals.address) {
    settings.address = globals.address;
    settings.addressFromEnv = true;
    settings.addressSource = '--address';
  }
  if (globals.namespace) settings.namespace = globals.namespace;
  if (globals.taskQueue) settings.taskQueue = globals.taskQueue;
  return settings;
}

/**
 * With `--verbose` only, gives `notice` the line that names the server a command talks to and what chose it
 * (a connection failure names the address in its own line).
 */
function noticeServer(settings: ConnectionSettings, globals: GlobalOptions, notice: (line: string) => void): void {
  if (!globals.verbose) return;
  const why = settings.addressFromEnv
    ? `from ${settings.addressSource ?? 'TEMPORAL_ADDRESS'}`
    : 'the default: set TEMPORAL_ADDRESS or pass --address to choose another';
  notice(`using the Temporal server at ${settings.address}, namespace ${settings.namespace} (${why})`);
}

/**
 * The model entries of the config file the CLI reads, as the workers read theirs; none when it cannot
 * be read (the commands that start runs report that themselves).
 */
function configModels(env: NodeJS.ProcessEnv): ModelInfo[] {
  try {
    return cliConfig(env).models;
  } catch {
    return [];
  }
}

/** A connected client for one command, what it is connected to, and how to release it. */
export interface Connected {
  agents: AgentClient;
  /**
   * The Web UI link of a run, when the UI is known: its User Metadata tab, which says what the run
   * does and what it waits for.
   */
  uiLink(id: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/**
 * Connects as the flags and environment say; `notice` gets the server line with `--verbose` and the client's
 * notices. The client knows the built-in kinds and `kinds`.
 */
export async function connectAgents(
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv,
  notice: (line: string) => void,
  kinds: readonly KindEdge[] = [],
): Promise<Connected> {
  const settings = settingsOf(globals, env);
  noticeServer(settings, globals, notice);
  // With tracing on, a run's start, signals and updates carry the command's trace context.
  const client = await connectClient(settings, currentTracing() ? { workflow: tracingInterceptors() } : undefined);
  let base: Promise<string | undefined> | undefined;
  return {
    agents: new AgentClient(client, settings.taskQueue, {
      kinds,
      models: configModels(env),
      defaults: cliDefaults(env),
      notice,
      ...(settings.maxPayloadBytes === undefined ? {} : { maxPayloadBytes: settings.maxPayloadBytes }),
    }),
    uiLink: async (id) => {
      base ??= webUiOf(settings.address, env);
      const root = await base;
      if (!root) return undefined;
      // The UI opens a tab only under a run id; without one, the link still opens the run.
      const runId = await client.workflow
        .getHandle(id)
        .describe()
        .then(
          (d) => d.runId,
          () => undefined,
        );
      return runUiUrl(root, settings.namespace, id, runId, 'user-metadata');
    },
    close: () => client.connection.close(),
  };
}

/**
 * Runs `fn` with a Temporal client connected as the flags and environment say (the server line on
 * stderr with `--verbose`) and closes the connection afterwards. A server that cannot be reached
 * fails the command, unless `ifUnreachable` says what to do without one.
 */
export async function withTemporal<T>(
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv,
  fn: (client: Client, settings: ConnectionSettings) => Promise<T>,
  ifUnreachable?: (settings: ConnectionSettings) => Promise<T>,
): Promise<T> {
  const settings = settingsOf(globals, env);
  noticeServer(settings, globals, printNotice);
  let client: Client;
  try {
    client = await connectClient(settings);
  } catch (err) {
    if (ifUnreachable) return ifUnreachable(settings);
    throw err;
  }
  try {
    return await fn(client, settings);
  } finally {
    await client.connection.close();
  }
}

/** The command prefix for hints, repeating the server flags this command was given. */
export function commandPrefix(globals: GlobalOptions): string {
  return [
    'durable-agents',
    ...(globals.address ? [`--address ${globals.address}`] : []),
    ...(globals.namespace ? [`--namespace ${globals.namespace}`] : []),
  ].join(' ');
}
