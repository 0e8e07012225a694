import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { AgentClient } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import { PAUSE_SWEEP_MS } from '../../src/worker/queue-pacer';
import { PRIMARY, timelineSummaries, waitFor, waitForState } from '../agent/agent-kit';
import { runCli } from '../kit/cli';
import { modelCallQueues, saveHistoryIfRecording, testConnection } from '../kit/temporal';
import { useWorkerHosts } from '../kit/worker-process';

const NO_WORKFLOWS = 'No workflows registered';

describe('durable-agents limits', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let configFile: string;
  const taskQueue = `limits-${crypto.randomUUID()}`;
  beforeAll(async () => {
    const { address, namespace } = await testConnection();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'limits-cli-'));
    configFile = path.join(dir, 'durable-agents.json');
    env = {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      DURABLE_AGENTS_TASK_QUEUE: taskQueue,
      DURABLE_AGENTS_CONFIG: configFile,
    };
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('set writes the limit and sets the queue rate on the server; show reports both with the backlog', async () => {
    const set = await runCli(['limits', 'set', 'anthropic', '--rpm', '90', '--concurrency', '3'], { env, cwd: dir });
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toContain(`task queue "${taskQueue}/llm/anthropic"`);
    expect(JSON.parse(fs.readFileSync(configFile, 'utf8'))).toEqual({
      providers: { anthropic: { limits: { requestsPerMinute: 90, concurrency: 3 } } },
    });

    const show = await runCli(['limits', 'show', '--json'], { env, cwd: dir });
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toEqual([
      {
        key: 'anthropic',
        taskQueue: `${taskQueue}/llm/anthropic`,
        requestsPerMinute: 90,
        concurrency: 3,
        serverRequestsPerMinute: 90,
        backlog: 0,
      },
    ]);
    const text = await runCli(['limits', 'show'], { env, cwd: dir });
    expect(text.stdout).toMatch(/^anthropic {2}90\/min {2}3 at once per worker {2}server: 90\/min {2}backlog: 0/);
  });

  it("set-tenant gives a tenant its weight on the workers' queues and each limited queue", async () => {
    const result = await runCli(['limits', 'set-tenant', 'acme', '--weight', '2.5'], { env, cwd: dir });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const { client } = await testConnection();
    for (const [name, type] of [
      [taskQueue, temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY],
      [taskQueue, temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW],
      [`${taskQueue}/llm/anthropic`, temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY],
    ] as const) {
      const described = await client.workflowService.describeTaskQueue({
        namespace: client.options.namespace,
        taskQueue: { name },
        taskQueueType: type,
        reportConfig: true,
      });
      expect(described.config?.fairnessWeightOverrides).toEqual({ acme: 2.5 });
    }
  });

  it.each([
    [['limits', 'set-tenant', 'two words', '--weight', '1'], /tenant "two words" is not a valid key/],
    [
      ['limits', 'set-tenant', 'acme', '--weight', '0'],
      /'--weight <w>' argument '0' is invalid\. "0" is not a weight from 0\.001 to 1000\./,
    ],
    [['limits', 'set-tenant', 'acme', '--weight', '0x2'], /"0x2" is not a weight from 0\.001 to 1000/],
    [
      ['limits', 'set', 'anthropic', '--rpm', '0'],
      /'--rpm <n>' argument '0' is invalid\. "0" is not a number from 0\.01 to 1000000\./,
    ],
    [['limits', 'set', 'anthropic', '--rpm', '-5'], /"-5" is not a number from 0\.01 to 1000000/],
    [['limits', 'set', 'anthropic', '--rpm', '1e-300'], /"1e-300" is not a number from 0\.01 to 1000000/],
    [['limits', 'set', 'anthropic', '--rpm', '0x3c'], /"0x3c" is not a number from 0\.01 to 1000000/],
    [['limits', 'set', 'anthropic', '--rpm', '10', '--concurrency', '0'], /"0" is not a whole number of at least 1/],
    [['limits', 'set', 'nowhere', '--rpm', '10'], /unknown provider "nowhere"/],
    [['limits', 'set', 'openai/no-such-model', '--rpm', '10'], /unknown model/],
  ])('%j: one line, exit 2, nothing changed', async (args, message) => {
    const before = fs.readFileSync(configFile, 'utf8');
    const result = await runCli(args, { env, cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.readFileSync(configFile, 'utf8')).toBe(before);
  });

  it.each([
    [['run', '--model', 'anthropic/claude-sonnet-4-6', '--tenant', 'two words', 'Hi.'], /tenant "two words"/],
    [['run', '--model', 'anthropic/claude-sonnet-4-6', '--priority', '0', 'Hi.'], /priority must be a whole number/],
    [
      ['run', '--model', 'anthropic/claude-sonnet-4-6', '--priority', 'high', 'Hi.'],
      /"high" is not a whole number from 1/,
    ],
  ])('%j is refused in one line before anything starts', async (args, message) => {
    const result = await runCli(args, { env, cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it.each([
    [{ limits: 'fast' }, /limits/],
    [{ limits: { requestsPerMinute: 1e-300 } }, /requestsPerMinute must be a number from 0\.01 to 1000000, got 1e-300/],
  ])(
    'a limits section %j in the file is refused in one line, and the file is left as it was',
    async (entry, message) => {
      const broken = `${JSON.stringify({ providers: { anthropic: entry } })}\n`;
      fs.writeFileSync(configFile, broken);
      for (const args of [
        ['limits', 'set', 'openai', '--rpm', '10'],
        ['limits', 'show'],
      ]) {
        const result = await runCli(args, { env, cwd: dir });
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(message);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
      }
      expect(fs.readFileSync(configFile, 'utf8')).toBe(broken);
    },
  );
});

describe('limits set on a running fleet', () => {
  const hosts = useWorkerHosts('limits-live');

  it("running workers send a provider's calls to the limit set while they run, without a restart", async () => {
    const { client, address, namespace } = await testConnection();
    const configFile = path.join(hosts.dir, 'durable-agents.json');
    fs.writeFileSync(configFile, '{}');
    const taskQueue = `limits-live-${crypto.randomUUID()}`;
    const limited = `${taskQueue}/llm/anthropic`;
    const worker = await hosts.start(taskQueue, { DURABLE_AGENTS_CONFIG: configFile });
    hosts.fake.respond(() => reply.text('Done.'));
    const agents = new AgentClient(client, taskQueue);
    // A run that answers before the limit is set, then waits for a follow-up.
    const across = await agents.start({ session: { idleWaitMs: 60_000 }, task: 'Across the limit.', model: PRIMARY });
    await waitForState(agents, across, (s) => s.status === 'awaiting_follow_up');
    expect(await modelCallQueues(client, across)).toEqual([taskQueue]);

    const env = {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      DURABLE_AGENTS_TASK_QUEUE: taskQueue,
      DURABLE_AGENTS_CONFIG: configFile,
    };
    const limit = await runCli(['limits', 'set', 'anthropic', '--rpm', '600', '--concurrency', '4'], {
      env,
      cwd: hosts.dir,
    });
    expect(limit).toMatchObject({ code: 0, stderr: '' });
    expect(limit.stdout).toContain(
      `Running workers send anthropic's calls to that queue within ${PAUSE_SWEEP_MS / 1000} s, without a restart. ` +
        '4 at once per worker applies to each worker when it restarts.',
    );
    await new Promise((resolve) => setTimeout(resolve, PAUSE_SWEEP_MS + 2_000));

    // The same worker, not restarted. The run that answered before: its next call reached the worker
    // on the run's own queue, which moved it, unmade, to the limit's queue, which the worker now polls.
    await agents.followUp(across, 'And now?');
    await waitFor(() => hosts.fake.requests.length === 2, 'the follow-up answer', 30_000);
    await waitForState(agents, across, (s) => s.status === 'awaiting_follow_up');
    await agents.stop(across);
    expect(await agents.result(across)).toMatchObject({ finalText: 'Done.' });
    expect(await modelCallQueues(client, across)).toEqual([taskQueue, taskQueue, limited]);
    const calls = (await timelineSummaries(client.workflow.getHandle(across))).filter((s) => s.startsWith('callModel'));
    expect(calls.slice(1)).toEqual([
      `callModel • turn 2 · model ${PRIMARY}`,
      `callModel • turn 2 · model ${PRIMARY} · moved to limit anthropic's queue`,
    ]);
    expect(hosts.fake.requests.map((r) => r.status)).toEqual([200, 200]);
    await saveHistoryIfRecording(client.workflow.getHandle(across), 'agent-call-moved-to-limit');
    // A new run: its first call pins its tools and sees the limit in the pin.
    const after = await agents.start({ task: 'After the limit.', model: PRIMARY });
    expect(await agents.result(after)).toMatchObject({ status: 'completed' });
    expect(await modelCallQueues(client, after)).toEqual([taskQueue, limited]);
    // The timeline tells the call that found the limit from the one made on its queue.
    expect(await timelineSummaries(client.workflow.getHandle(after))).toEqual([
      `callModel • turn 1 · model ${PRIMARY}`,
      `callModel • turn 1 · model ${PRIMARY} · moved to limit anthropic's queue`,
    ]);
    expect(worker.output()).not.toContain(NO_WORKFLOWS);
  }, 120_000);

  it('a worker with limits does not warn that their queues poll no workflows', async () => {
    const configFile = path.join(hosts.dir, 'limited.json');
    fs.writeFileSync(configFile, JSON.stringify({ providers: { anthropic: { limits: { requestsPerMinute: 60 } } } }));
    const worker = await hosts.start(`limits-quiet-${crypto.randomUUID()}`, {
      DURABLE_AGENTS_CONFIG: configFile,
      DURABLE_AGENTS_LOG_LEVEL: 'INFO',
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(worker.output()).toContain('Worker polling');
    expect(worker.output()).not.toContain(NO_WORKFLOWS);
  }, 60_000);
});
