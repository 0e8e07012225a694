import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../kit/cli';
import { temporal } from '@temporalio/proto';
import { testConnection } from '../kit/temporal';

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
