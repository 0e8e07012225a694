import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, RunAgentInput } from '@ag-ui/core';
import { freePort } from '../../src/server/ports';
import { reply } from '../../src/testing/fake-provider';
import { runCli, spawnCli, waitForOutput } from '../kit/cli';
import { testConnection, withWorker } from '../kit/temporal';
import { useAgentFixture } from '../agent/agent-kit';
import { collect, PUBLISHED } from './gateway-kit';

type Ev = BaseEvent & Record<string, unknown>;

const textOf = (events: Ev[]) =>
  events.flatMap((e) => (e.type === 'TEXT_MESSAGE_CONTENT' ? [String(e.delta)] : [])).join('');

/** `durable-agents serve` as its own process, for the worker's task queue; resolves once it listens. */
async function serve(port: number, taskQueue: string, agentsFile: string, storeDir: string): Promise<ChildProcess> {
  const { address, namespace } = await testConnection();
  const child = spawnCli(
    ['serve', '--port', String(port), '--agents', agentsFile, '--task-queue', taskQueue, '--json'],
    {
      env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_STORE_DIR: storeDir },
    },
  );
  await waitForOutput(child, /"url"/);
  return child;
}

describe('a gateway that dies mid-stream', () => {
  const fx = useAgentFixture();

  it('is SIGKILLed while a client streams: restarted, or another replica, resumes the stream and the run goes on unaffected', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    fx.fake.script(reply.text(words, { eventDelayMs: 80 }));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-'));
    const agentsFile = path.join(dir, 'agents.json');
    fs.writeFileSync(agentsFile, JSON.stringify({ agents: PUBLISHED }));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const [portA, portB] = [await freePort(), await freePort()];
      let a = await serve(portA, taskQueue, agentsFile, fx.store.root);
      const b = await serve(portB, taskQueue, agentsFile, fx.store.root);
      const runId = `r-${Date.now()}`;
      const input: RunAgentInput = {
        threadId: 'thread-k',
        runId,
        messages: [{ id: 'u1', role: 'user', content: 'Say many words.' }],
        tools: [],
        context: [],
      };

      // The first stream, until the gateway process is killed under it (the client lets go as it dies).
      const seen: Ev[] = [];
      const first = new HttpAgent({ url: `http://127.0.0.1:${portA}/ag-ui/reader` });
      const sub = first.run(input).subscribe({
        next: (e) => void seen.push(e as Ev),
        error: () => undefined,
      });
      for (let i = 0; i < 200 && seen.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').length < 2; i++)
        await new Promise((r) => setTimeout(r, 50));
      first.abortRun();
      sub.unsubscribe();
      a.kill('SIGKILL');
      await new Promise((resolve) => a.once('exit', resolve));
      const before = textOf(seen);
      const last = seen.filter((e) => e.rawEvent).at(-1)!.rawEvent as { resume: string };
      expect(before.length).toBeGreaterThan(0);
      expect(before.length).toBeLessThan(words.length);

      // Started again on its port: the client resumes after the last event it has.
      a = await serve(portA, taskQueue, agentsFile, fx.store.root);
      const resumed = new HttpAgent({
        url: `http://127.0.0.1:${portA}/ag-ui/reader`,
        headers: { 'Last-Event-ID': last.resume },
      });
      const rest = (await collect(resumed.run(input))) as Ev[];
      expect(before + textOf(rest)).toBe(words);
      expect(rest.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });

      // Another replica serves the same run from the start, with no session of its own.
      const again = (await collect(
        new HttpAgent({ url: `http://127.0.0.1:${portB}/ag-ui/reader` }).run(input),
      )) as Ev[];
      expect(textOf(again)).toBe(words);
      const result = await client.workflow.getHandle(`reader:${runId}`).result();
      expect(result).toMatchObject({ status: 'completed', finalText: words, turns: 1 });
      expect(fx.fake.requests).toHaveLength(1);
      a.kill('SIGTERM');
      b.kill('SIGTERM');
    });
  });

  it('refuses to start beyond loopback without an API key file, before it connects to anything', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-'));
    const agentsFile = path.join(dir, 'agents.json');
    fs.writeFileSync(agentsFile, JSON.stringify({ agents: PUBLISHED }));
    const out = await runCli(['serve', '--bind', '0.0.0.0', '--port', '1', '--agents', agentsFile], {
      env: { TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe(
      'durable-agents: the gateway binds 0.0.0.0, beyond this machine: give it an API key file (--keys FILE)',
    );
  });
});
