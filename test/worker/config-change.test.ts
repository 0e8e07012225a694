/**
 * A config file changed after the worker started, from outside: the CLI reads the new file and
 * starts the run, and the worker, which read its file at start, says so in the run's error (naming
 * the file and that it needs a restart); after a restart the same command works.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fakeProviderEnv, reply, startFakeProvider } from '../../src/testing/fake-provider';
import { runCli } from '../kit/cli';
import { testConnection } from '../kit/temporal';
import { startWorkerProcess, type WorkerProcess } from '../kit/worker-process';

describe('a config file changed after the worker started', () => {
  it('fails the run saying where the worker read its config and that it needs a restart; a restart picks it up', async () => {
    const { address, namespace } = await testConnection();
    const fake = await startFakeProvider();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-change-'));
    const file = path.join(dir, 'durable-agents.json');
    const taskQueue = `config-change-${crypto.randomUUID()}`;
    const env = {
      ...fakeProviderEnv(fake),
      DURABLE_AGENTS_STORE_DIR: path.join(dir, 'store'),
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      DURABLE_AGENTS_TASK_QUEUE: taskQueue,
    };
    fs.writeFileSync(file, JSON.stringify({ providers: {} }));
    let worker: WorkerProcess | undefined = await startWorkerProcess({ taskQueue, cwd: dir, env });
    try {
      const local = { api: 'anthropic', baseUrl: fake.anthropicBaseUrl('/local'), apiKeyRequired: false };
      fs.writeFileSync(file, JSON.stringify({ providers: { local } }));
      const run = () => runCli(['run', '--model', 'local/tiny', 'Say hi.'], { cwd: dir, env });

      const stale = await run();
      expect(stale.code).toBe(1);
      expect(stale.stderr.split('\n').filter((l) => l.includes('failed: '))).toEqual([
        expect.stringContaining(
          'LlmConfigError: Unknown provider "local" in model spec "local/tiny". Known providers: anthropic, minimax, ' +
            `openai, openai-compatible. Declare others under "providers" in the config file. This worker read its ` +
            `config from ${file} when it started: restart it to use providers declared since.`,
        ),
      ]);
      expect(fake.requests).toHaveLength(0);

      await worker.stop();
      worker = undefined;
      worker = await startWorkerProcess({ taskQueue, cwd: dir, env });
      fake.script(reply.text('Hi.'));
      const fresh = await run();
      expect({ code: fresh.code, stdout: fresh.stdout }).toEqual({ code: 0, stdout: expect.stringMatching(/^Hi\.\n/) });
      expect(fake.requests.map((r) => r.path)).toEqual(['/local/v1/messages']);
    } finally {
      await worker?.stop();
      await fake.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
