/**
 * `durable-agents worker --metrics-port` serves the SDK runtime's Prometheus endpoint with the
 * agents' own series beside the SDK's: scraped after runs, it shows tokens, cost, model-call latency
 * and time to first token by provider, model and tenant, tool calls and errors by tool, runs by stop
 * reason, and the runs waiting for an approval.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentClient } from '../../src/client';
import { freePort } from '../../src/server/ports';
import { fakeProviderEnv, reply, startFakeProvider, type FakeProvider } from '../../src/testing/fake-provider';
import { PRIMARY, waitForState } from '../agent/agent-kit';
import { runCli } from '../kit/cli';
import { testConnection } from '../kit/temporal';
import { startWorkerProcess, type WorkerProcess } from '../kit/worker-process';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
function samplesOf(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) return [];
    const labels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    return [{ name: match[1], labels, value: Number(match[3]) }];
  });
}

/** The sum of the samples of `name` whose labels include `labels`. */
const total = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

describe('the worker’s metrics endpoint', () => {
  let fake: FakeProvider;
  let dir: string;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    fake = await startFakeProvider();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'metrics-'));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'Two items are still open.\n');
  });
  afterAll(async () => {
    await worker?.stop();
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows tokens, cost, latency, tool and run series with their labels after runs', async () => {
    const port = await freePort();
    const taskQueue = `metrics-${process.pid}-${Date.now()}`;
    worker = await startWorkerProcess({
      taskQueue,
      cwd: dir,
      env: { ...fakeProviderEnv(fake), DURABLE_AGENTS_STORE_DIR: 'store' },
      args: ['--metrics-port', String(port)],
    });
    expect(worker.output()).toContain(`Metrics on http://0.0.0.0:${port}/metrics`);
    const scrape = async () => samplesOf(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());

    const { client } = await testConnection();
    const agents = new AgentClient(client, taskQueue);
    const tools = { allow: ['fs_read'], workspaceRoot: dir };
    fake.script(
      reply.toolCalls([
        { name: 'fs_read', arguments: { path: 'notes.txt' } },
        { name: 'fs_read', arguments: { path: 'missing.txt' } },
      ]),
      reply.text('Two items are open.'),
    );
    const id = await agents.start({
      fleet: { tenant: 'acme' },
      task: 'Which items are open?',
      model: PRIMARY,
      tools,
      stream: true,
    });
    expect(await agents.result(id)).toMatchObject({ status: 'completed' });

    // A run that waits for an approval is counted from visibility within the gauge's period.
    fake.script(reply.toolCalls([{ name: 'fs_read', arguments: { path: 'notes.txt' } }]));
    const waiting = await agents.start({
      task: 'Read the notes.',
      model: PRIMARY,
      tools: { ...tools, approve: ['fs_read'] },
    });
    await waitForState(agents, waiting, (s) => s.pendingApprovals.length > 0);
    const deadline = Date.now() + 40_000;
    let samples = await scrape();
    while (total(samples, 'durable_agents_approvals_waiting', { taskQueue }) !== 1) {
      if (Date.now() > deadline) throw new Error('the approvals gauge never showed the waiting run');
      await new Promise((resolve) => setTimeout(resolve, 500));
      samples = await scrape();
    }
    await agents.terminate(waiting, 'test done');

    const model = { provider: 'anthropic', model: 'claude-sonnet-4-6', tenant: 'acme' };
    expect(total(samples, 'durable_agents_model_tokens', { ...model, type: 'input' })).toBeGreaterThan(0);
    expect(total(samples, 'durable_agents_model_tokens', { ...model, type: 'output' })).toBeGreaterThan(0);
    expect(total(samples, 'durable_agents_model_cost_usd_sum', model)).toBeGreaterThan(0);
    expect(total(samples, 'durable_agents_model_cost_usd_count', model)).toBe(2);
    expect(total(samples, 'durable_agents_model_call_latency_count', { ...model, outcome: 'ok' })).toBe(2);
    expect(total(samples, 'durable_agents_model_time_to_first_token_count', model)).toBe(2);
    expect(total(samples, 'durable_agents_tool_calls', { tool: 'fs_read' })).toBe(2);
    expect(total(samples, 'durable_agents_tool_errors', { tool: 'fs_read' })).toBe(1);
    expect(
      total(samples, 'durable_agents_runs', { stop_reason: 'completed', agent_kind: 'react', tenant: 'acme' }),
    ).toBe(1);
    // The SDK's own series are on the same endpoint.
    expect(samples.some((s) => s.name.startsWith('temporal_') && s.labels.task_queue === taskQueue)).toBe(true);
  }, 120_000);

  it('refuses a metrics port that is no port in one line, before it connects', async () => {
    const { code, stderr } = await runCli(['worker', '--metrics-port', 'nine'], {
      env: { TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    expect(code).not.toBe(0);
    expect(stderr.trim()).toBe('durable-agents: --metrics-port nine is not a port: give a number from 1 to 65535.');
  });
});
