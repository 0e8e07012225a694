import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentClient } from '../../src/client';
import { fakeProviderEnv, reply, startFakeProvider } from '../../src/testing/fake-provider';
import { spawnCli, waitForOutput } from '../kit/cli';
import { testConnection, workflowBundle } from '../kit/temporal';

describe('durable-agents worker', () => {
  it('serves the project task queue from the prebuilt bundle and drains gracefully on SIGTERM', async () => {
    const { address, client } = await testConnection();
    const taskQueue = `worker-${crypto.randomUUID()}`;
    const fake = await startFakeProvider();
    const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-store-'));
    const child = spawnCli(['worker', '--task-queue', taskQueue], {
      env: {
        ...fakeProviderEnv(fake),
        DURABLE_AGENTS_STORE_DIR: storeDir,
        TEMPORAL_ADDRESS: address,
        DURABLE_AGENTS_WORKFLOW_BUNDLE: workflowBundle().codePath,
        DURABLE_AGENTS_LOG_LEVEL: 'WARN',
      },
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    try {
      await waitForOutput(
        child,
        new RegExp(`Worker polling task queue "${taskQueue}" on ${address.replace(/[.]/g, '\\.')}`),
      );
      fake.script(reply.text('Hello, worker!'));
      const agents = new AgentClient(client, taskQueue);
      const id = await agents.start({ task: 'Say hello.', model: 'anthropic/claude-sonnet-4-6' });
      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: 'Hello, worker!' });
    } finally {
      child.kill('SIGTERM');
      await fake.close();
      fs.rmSync(storeDir, { recursive: true, force: true });
    }
    expect(await exited).toBe(0);
    expect(stdout).toContain('Worker stopped.');
  });
});
