import crypto from 'node:crypto';
import { helloWorkflow } from '../../src/workflows';
import { spawnCli, waitForOutput } from '../kit/cli';
import { testConnection, workflowBundle } from '../kit/temporal';

describe('durable-agents worker', () => {
  it('serves the project task queue from the prebuilt bundle and drains gracefully on SIGTERM', async () => {
    const { address, client } = await testConnection();
    const taskQueue = `worker-${crypto.randomUUID()}`;
    const child = spawnCli(['worker', '--task-queue', taskQueue], {
      env: {
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
      const result = await client.workflow.execute(helloWorkflow, {
        args: ['worker'],
        taskQueue,
        workflowId: `hello-${taskQueue}`,
      });
      expect(result).toBe('Hello, worker!');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stdout).toContain('Worker stopped.');
  });
});
