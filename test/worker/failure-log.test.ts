/**
 * The worker's log as an operator reads it: a provider's refusal is one WARN line with its type
 * and message, not a stack trace; an unexpected failure keeps its stack.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure, type LogLevel, type LogMetadata } from '@temporalio/common';
import { AgentClient } from '../../src/client';
import { fakeProviderEnv, reply, startFakeProvider } from '../../src/testing/fake-provider';
import { ExpectedFailureLogger } from '../../src/worker/failure-log';
import { testConnection } from '../kit/temporal';
import { startWorkerProcess } from '../kit/worker-process';

const PRIMARY = 'anthropic/claude-sonnet-4-6';

describe("the worker's log of failed activities", () => {
  it('shows a provider 401, and the run it failed, as one line each with type and message, without a stack', async () => {
    const { client } = await testConnection();
    const fake = await startFakeProvider();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'failure-log-'));
    const taskQueue = `failure-log-${crypto.randomUUID()}`;
    const worker = await startWorkerProcess({
      taskQueue,
      cwd: dir,
      env: { ...fakeProviderEnv(fake, 'sk-test-0401'), DURABLE_AGENTS_STORE_DIR: path.join(dir, 'store') },
    });
    try {
      fake.script(reply.error(401, { message: 'invalid x-api-key' }));
      const agents = new AgentClient(client, taskQueue);
      const id = await agents.start({ task: 'Try with a revoked key.', model: PRIMARY });
      expect(await agents.result(id)).toMatchObject({ status: 'failed', error: { type: 'LlmAuthentication' } });
      const lines = worker.output().split('\n');
      const failed = lines.filter((line) => line.includes('Activity failed'));
      expect(failed).toEqual([
        expect.stringMatching(
          new RegExp(
            `\\[WARN\\] Activity failed callModel of ${id} \\(attempt 1\\): LlmAuthentication: .*invalid x-api-key`,
          ),
        ),
      ]);
      expect(lines.filter((line) => line.includes('Workflow failed'))).toEqual([
        expect.stringMatching(
          new RegExp(`\\[WARN\\] Workflow failed reactAgentWorkflow ${id}: .*401.*invalid x-api-key$`),
        ),
      ]);
      expect(lines.filter((line) => /^\s+at /.test(line))).toEqual([]);
    } finally {
      await worker.stop();
      await fake.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('passes an unexpected failure on with its error, and expected ones without it', () => {
    const logged: { level: LogLevel; message: string; meta?: LogMetadata }[] = [];
    const logger = new ExpectedFailureLogger({
      log: (level, message, meta) => void logged.push({ level, message, meta }),
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    });
    const bug = new TypeError('cannot read properties of undefined');
    logger.warn('Activity failed', { error: bug, activityType: 'runTool', attempt: 2 });
    const refused = ApplicationFailure.create({ message: 'no tool "x"', type: 'UnknownTool', nonRetryable: true });
    logger.warn('Activity failed', { error: refused, activityType: 'pinTools', workflowId: 'agent-1', attempt: 1 });
    const flaky = ApplicationFailure.create({ message: 'boom', type: 'UnknownTool', nonRetryable: false });
    logger.warn('Activity failed', { error: flaky });
    const copied = Object.assign(new Error('the run failed'), {
      stack: 'ApplicationFailure: the run failed\n    at x',
    });
    logger.warn('Workflow failed', { error: copied, workflowType: 'reactAgentWorkflow', workflowId: 'agent-2' });
    expect(logged).toEqual([
      { level: 'WARN', message: 'Activity failed', meta: { error: bug, activityType: 'runTool', attempt: 2 } },
      { level: 'WARN', message: 'Activity failed pinTools of agent-1 (attempt 1): UnknownTool: no tool "x"', meta: {} },
      { level: 'WARN', message: 'Activity failed', meta: { error: flaky } },
      { level: 'WARN', message: 'Workflow failed reactAgentWorkflow agent-2: the run failed', meta: {} },
    ]);
  });
});
