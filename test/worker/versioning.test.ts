/**
 * Worker Deployment Versioning on the real dev server: two versions of one deployment poll the same
 * task queue, v1 the project's worker in this process (through its plugin), v2 `durable-agents worker
 * --deployment … --build-id …` in a process of its own. A run that began on v1 and waits for an
 * approval while v2 becomes current finishes on v1, which drains once it ends; a run started after
 * goes to v2, also from a client that shares v1's connection. A worker given a version Temporal
 * would refuse says so in one line before it connects.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { fakeProviderEnv, reply } from '../../src/testing/fake-provider';
import { DurableAgentsPlugin } from '../../src/worker/plugin';
import { workerConfig } from '../../src/worker/worker-config';
import { PRIMARY, useAgentFixture, waitForState, type AgentFixture } from '../agent/agent-kit';
import { runCli, spawnCli, stopProcess, waitForOutput } from '../kit/cli';
import { REPO_ROOT } from '../kit/env';
import { testConnection, workflowBundle } from '../kit/temporal';
import { drainageReaches, setCurrentVersion, versioningOf } from '../kit/deployments';

const { EventType } = temporal.api.enums.v1;

interface RunningVersion {
  buildId: string;
  worker: Worker;
  running: Promise<void>;
}

/** The project's worker as version `buildId` of `deploymentName`, polling until it is shut down. */
async function startVersion(
  fx: AgentFixture,
  deploymentName: string,
  buildId: string,
  taskQueue: string,
): Promise<RunningVersion> {
  const { connection, namespace } = await testConnection();
  const config = workerConfig({
    file: null,
    env: { ...fakeProviderEnv(fx.fake, 'test-key') },
    deployment: { deployment: deploymentName, buildId },
  });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowBundle: workflowBundle(),
    plugins: [new DurableAgentsPlugin({ config, activities: fx.activities })],
  });
  return { buildId, worker, running: worker.run() };
}

/** The build ids of the workers that completed the run's workflow tasks, in order. */
async function taskBuildIds(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
    .map((event) => {
      const version = event.workflowTaskCompletedEventAttributes?.deploymentVersion;
      return `${version?.deploymentName ?? '(none)'}:${version?.buildId ?? '(none)'}`;
    });
}

/** `durable-agents worker --deployment … --build-id …` as a process of its own; resolves with its ready lines once it polls. */
async function startVersionProcess(
  fx: AgentFixture,
  deploymentName: string,
  buildId: string,
  taskQueue: string,
  cwd: string,
): Promise<{ child: ChildProcess; ready: string }> {
  const { address, namespace } = await testConnection();
  const child = spawnCli(['worker', '--task-queue', taskQueue, '--deployment', deploymentName, '--build-id', buildId], {
    cwd,
    env: {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      DURABLE_AGENTS_WORKFLOW_BUNDLE: workflowBundle().codePath,
      DURABLE_AGENTS_LOG_LEVEL: 'WARN',
      ...fakeProviderEnv(fx.fake, 'test-key'),
    },
  });
  return { child, ready: await waitForOutput(child, /set-current-version .*\n/) };
}

describe('worker deployment versioning', () => {
  const fx = useAgentFixture();
  const versions: RunningVersion[] = [];
  const processes: ChildProcess[] = [];
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'versioning-'));
  });

  afterEach(async () => {
    for (const child of processes.splice(0)) await stopProcess(child, 'SIGTERM');
    for (const version of versions.splice(0)) {
      version.worker.shutdown();
      await version.running;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a pinned run waiting for approval on v1 (draining) after v2 becomes current until it ends (drained), and starts new runs on v2', async () => {
    const { client } = await testConnection();
    const deploymentName = `agents-${crypto.randomUUID()}`;
    const taskQueue = `test-${crypto.randomUUID()}`;
    const agents = fx.agents(client, taskQueue);
    fx.fake.script(
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'old.txt' }, id: 'toolu_v1' }]),
      reply.text('Deleted old.txt.'),
      reply.text('Hello from the new version.'),
    );

    versions.push(await startVersion(fx, deploymentName, 'v1', taskQueue));
    await setCurrentVersion(client, deploymentName, 'v1', taskQueue);
    const pinned = await agents.start({ tools: { approve: ['delete_file'] }, task: 'Delete old.txt.', model: PRIMARY });
    await waitForState(agents, pinned, (s) => s.status === 'awaiting_approval');

    const v2 = await startVersionProcess(fx, deploymentName, 'v2', taskQueue, dir);
    processes.push(v2.child);
    await setCurrentVersion(client, deploymentName, 'v2', taskQueue);
    // v1 still holds an open pinned run: its workers must keep running.
    await drainageReaches(client, deploymentName, 'v1', 'DRAINING');
    await agents.approve(pinned, 'toolu_v1');
    const pinnedResult = await agents.result(pinned);
    await drainageReaches(client, deploymentName, 'v1', 'DRAINED');

    // The client shares v1's connection: an eager start would hand this run to v1.
    const fresh = await agents.start({ task: 'Say hello.', model: PRIMARY });
    const freshResult = await agents.result(fresh);

    expect(pinnedResult).toMatchObject({ status: 'completed', finalText: 'Deleted old.txt.' });
    expect(fx.calls).toEqual(['delete_file:old.txt']);
    const pinnedTasks = await taskBuildIds(client, pinned);
    expect(pinnedTasks.length).toBeGreaterThan(2);
    expect(new Set(pinnedTasks)).toEqual(new Set([`${deploymentName}:v1`]));
    expect(await versioningOf(client, pinned)).toEqual({
      behavior: 'VERSIONING_BEHAVIOR_PINNED',
      version: `${deploymentName}:v1`,
    });

    expect(v2.ready).toContain(`Worker polling task queue "${taskQueue}"`);
    expect(v2.ready).toContain(`as version ${deploymentName}:v2,`);
    expect(v2.ready).toContain(
      `temporal worker deployment set-current-version --deployment-name ${deploymentName} --build-id v2\n`,
    );
    expect(freshResult).toMatchObject({ status: 'completed', finalText: 'Hello from the new version.' });
    expect(new Set(await taskBuildIds(client, fresh))).toEqual(new Set([`${deploymentName}:v2`]));
    expect(await versioningOf(client, fresh)).toEqual({
      behavior: 'VERSIONING_BEHAVIOR_PINNED',
      version: `${deploymentName}:v2`,
    });
  });

  it.each([
    [['--deployment', 'agents', '--build-id', 'v1:2'], '--build-id="v1:2" is not a valid build id'],
    [['--deployment', 'agents.prod', '--build-id', 'v1'], '--deployment="agents.prod" is not a valid deployment name'],
    [['--deployment', 'agents', '--build-id', ''], '--build-id is empty'],
    [['--deployment', 'agents'], '--deployment names a worker deployment but no build id is given'],
    [['--deployment', 'agents', '--build-id', '__v1'], '--build-id="__v1" is not a valid build id'],
    [['--build-id', 'v1'], '--build-id gives a build id but no worker deployment'],
  ])('`worker %j` refuses to start in one line, before connecting', async (flags, message) => {
    // Nothing listens at this address: a worker that got as far as connecting would say so instead.
    const result = await runCli(['worker', ...flags], {
      env: { TEMPORAL_ADDRESS: '127.0.0.1:1', DURABLE_AGENTS_DEPLOYMENT: '', DURABLE_AGENTS_BUILD_ID: '' },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(message)]);
  });

  it('`node worker.js` reads the version from the environment and refuses a deployment without a build id', async () => {
    const result = spawnSync(
      process.execPath,
      ['-r', path.join(REPO_ROOT, 'scripts', 'register-ts.js'), path.join(REPO_ROOT, 'src', 'worker.ts')],
      {
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: '127.0.0.1:1',
          DURABLE_AGENTS_DEPLOYMENT: 'agents',
          DURABLE_AGENTS_BUILD_ID: '',
        },
        encoding: 'utf8',
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'durable-agents: DURABLE_AGENTS_DEPLOYMENT names a worker deployment but no build id is given: pass ' +
        '--build-id or set DURABLE_AGENTS_BUILD_ID.\n',
    );
  });
});
