/**
 * `durable-agents worker --metrics-port` serves the SDK runtime's Prometheus endpoint, on this
 * machine only unless `--metrics-bind` says otherwise, with the agents' own series beside the SDK's
 * and named as Prometheus names them (counters in `_total`, durations in `_seconds`, labels as the
 * SDK's series spell them): scraped after runs, it shows tokens, cost, model-call duration and time
 * to first token by provider, model and tenant, tool calls and errors by tool, runs by stop reason,
 * and the runs waiting for people, tool calls apart from pev plans.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentClient } from '../../src/client';
import { freePort } from '../../src/server/ports';
import { fakeProviderEnv, reply, startFakeProvider, type FakeProvider } from '../../src/testing/fake-provider';
import { PRIMARY, waitForState } from '../agent/agent-kit';
import { answer, pevProgress, startPev } from '../pev/pev-kit';
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

/** The `# HELP` lines of a Prometheus text exposition. */
const helpLines = (text: string): string[] => text.split('\n').filter((line) => line.startsWith('# HELP '));

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
    expect(worker.output()).toContain(`Metrics on http://127.0.0.1:${port}/metrics`);
    // This machine only: 127.0.0.2 is this machine too, through an address the endpoint does not listen on.
    await expect(fetch(`http://127.0.0.2:${port}/metrics`)).rejects.toThrow();
    const exposition = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const scrape = async () => samplesOf(await exposition());

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

    // Runs waiting for people are counted from visibility within the gauge's period: a tool call
    // waiting for its approval, and a pev plan waiting for its decision, apart.
    fake.script(reply.toolCalls([{ name: 'fs_read', arguments: { path: 'notes.txt' } }]));
    const waiting = await agents.start({
      task: 'Read the notes.',
      model: PRIMARY,
      tools: { ...tools, approve: ['fs_read'] },
    });
    await waitForState(agents, waiting, (s) => s.pendingApprovals.length > 0);
    fake.script(answer.plan([{ id: 'step-1', description: 'Read the notes' }]));
    const planned = await startPev(client, taskQueue, { task: 'Plan it.', pev: { confirmPlan: true } });
    const deadline = Date.now() + 60_000;
    let samples = await scrape();
    const waits = () =>
      ['tool_call', 'plan'].map((wait) =>
        total(samples, 'durable_agents_approvals_waiting', { task_queue: taskQueue, wait }),
      );
    while ((await pevProgress(client, planned)).phase !== 'confirming' || waits().join() !== '1,1') {
      if (Date.now() > deadline)
        throw new Error(`the approvals gauge shows ${waits().join()} for a tool call and a plan`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      samples = await scrape();
    }
    await agents.terminate(waiting, 'test done');
    await agents.terminate(planned, 'test done');

    const model = { provider: 'anthropic', model: 'claude-sonnet-4-6', tenant: 'acme' };
    const call = { ...model, activity_type: 'callModel' };
    expect(total(samples, 'durable_agents_model_tokens_total', { ...call, type: 'input' })).toBeGreaterThan(0);
    expect(total(samples, 'durable_agents_model_tokens_total', { ...call, type: 'output' })).toBeGreaterThan(0);
    expect(total(samples, 'durable_agents_model_cost_usd_sum', call)).toBeGreaterThan(0);
    expect(total(samples, 'durable_agents_model_cost_usd_count', call)).toBe(2);
    const durations = { ...call, outcome: 'ok' };
    expect(total(samples, 'durable_agents_model_call_duration_seconds_count', durations)).toBe(2);
    // Seconds: two calls to a local fake take well under a second each, and more than nothing.
    const seconds = total(samples, 'durable_agents_model_call_duration_seconds_sum', durations);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(20);
    expect(total(samples, 'durable_agents_model_time_to_first_token_seconds_count', call)).toBe(2);
    expect(total(samples, 'durable_agents_tool_calls_total', { tool: 'fs_read' })).toBe(2);
    expect(total(samples, 'durable_agents_tool_errors_total', { tool: 'fs_read' })).toBe(1);
    const ended = { stop_reason: 'completed', agent_kind: 'react', tenant: 'acme' };
    expect(total(samples, 'durable_agents_runs_total', { ...ended, task_queue: taskQueue })).toBe(1);
    expect(total(samples, 'durable_agents_runs_total', { ...ended, workflow_type: 'reactAgentWorkflow' })).toBe(1);

    const ours = samples.filter((s) => s.name.startsWith('durable_agents_'));
    // Labels as the SDK's series spell them, so that a query joins the two as they are.
    expect(ours.flatMap((s) => Object.keys(s.labels).filter((label) => /[A-Z]/.test(label)))).toEqual([]);
    expect(ours.filter((s) => s.labels.task_queue === undefined && !s.name.startsWith('durable_agents_tool_'))).toEqual(
      [],
    );
    // A tool call is no model call, whichever activity ran it.
    expect(ours.filter((s) => s.name.startsWith('durable_agents_tool_') && s.labels.activity_type)).toEqual([]);
    expect(helpLines(await exposition()).filter((line) => /[^\x20-\x7e]/.test(line))).toEqual([]);
    // The SDK's own series are on the same endpoint.
    expect(samples.some((s) => s.name.startsWith('temporal_') && s.labels.task_queue === taskQueue)).toBe(true);
  }, 120_000);

  it('refuses a metrics port that is no port, or an address that is no IP address, in one line, before it connects', async () => {
    const refusal = async (args: string[]) => {
      const { code, stderr } = await runCli(['worker', ...args], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
      return { code: code === 0 ? 0 : 'not 0', stderr: stderr.trim() };
    };
    expect(await refusal(['--metrics-port', 'nine'])).toEqual({
      code: 'not 0',
      stderr: 'durable-agents: --metrics-port nine is not a port: give a number from 1 to 65535.',
    });
    expect(await refusal(['--metrics-port', '9464', '--metrics-bind', 'everywhere'])).toEqual({
      code: 'not 0',
      stderr:
        'durable-agents: --metrics-bind everywhere is not an IP address: give 127.0.0.1 (this machine only, ' +
        'the default) or 0.0.0.0 (every interface).',
    });
  });
});
