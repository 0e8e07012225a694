/**
 * Which spans a run makes and what they name: a worker process (`durable-agents worker`) exporting
 * traces sends spans of traced runs alone, none of a run started without a trace context and none
 * of its own; and in a traced run every project span names its run, kind and agent, a sub-agent's
 * by the name its parent calls it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import { Client } from '@temporalio/client';
import { AgentClient } from '../../src/client';
import { currentTracing, startTracing, tracingClientInterceptors } from '../../src/telemetry';
import { fakeProviderEnv, reply, startFakeProvider, type FakeProvider } from '../../src/testing/fake-provider';
import { workerConfig } from '../../src/worker/worker-config';
import { PRIMARY } from '../agent/agent-kit';
import { AGENTS, who } from '../agent/subagents-kit';
import { runCli, stopProcess } from '../kit/cli';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../kit/otlp-receiver';
import { testConnection, withWorker } from '../kit/temporal';
import { startWorkerProcess } from '../kit/worker-process';

const named = (spans: ReceivedSpan[], pattern: RegExp): ReceivedSpan[] => spans.filter((s) => pattern.test(s.name));

describe('the spans of runs', () => {
  let receiver: OtlpReceiver;
  let fake: FakeProvider;
  let dir: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    fake = await startFakeProvider();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-spans-'));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'Two items are open.\n');
  });
  afterAll(async () => {
    await fake?.close();
    await receiver?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('from a worker process: a traced run’s spans in its own trace, nothing of an untraced run or of the worker', async () => {
    fake.respond((request) =>
      JSON.stringify(request.body.messages).includes('"tool_result"')
        ? reply.text('Two items.')
        : reply.toolCalls([{ name: 'fs_read', arguments: { path: 'notes.txt' } }]),
    );
    const taskQueue = `run-spans-${process.pid}-${Date.now()}`;
    const host = await startWorkerProcess({
      taskQueue,
      cwd: dir,
      env: {
        ...fakeProviderEnv(fake),
        DURABLE_AGENTS_STORE_DIR: 'store',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'worker-process',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
    const { client, address, namespace } = await testConnection();
    const agents = new AgentClient(client, taskQueue);
    const tools = { allow: ['fs_read'], workspaceRoot: dir };
    const untraced = await agents.start({ task: 'How many items are open?', model: PRIMARY, tools });
    expect(await agents.result(untraced)).toMatchObject({ status: 'completed' });
    const cli = await runCli(
      [
        '--task-queue',
        taskQueue,
        'run',
        'How many items are open?',
        '--model',
        PRIMARY,
        '--tools',
        'fs_read',
        '--workspace',
        dir,
      ],
      {
        cwd: dir,
        env: {
          TEMPORAL_ADDRESS: address,
          TEMPORAL_NAMESPACE: namespace,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_SERVICE_NAME: 'cli',
        },
      },
    );
    expect(cli).toMatchObject({ code: 0, stdout: expect.stringContaining('Two items.') });
    // Its stop sends what it still holds.
    await stopProcess(host.child, 'SIGTERM');

    const [command] = receiver.spans.filter((s) => s.service === 'cli' && s.name === 'durable-agents run');
    expect(command).toBeDefined();
    const fromWorker = receiver.spans.filter((s) => s.service === 'worker-process');
    expect(named(fromWorker, /^(chat|execute_tool) /).length).toBeGreaterThanOrEqual(3);
    expect(fromWorker.filter((s) => s.traceId !== command.traceId).map((s) => s.name)).toEqual([]);
    expect(fromWorker.filter((s) => JSON.stringify(s.attributes).includes(untraced))).toEqual([]);
  }, 120_000);

  describe('in a traced run with a sub-agent', () => {
    let client: Client;
    const config = () =>
      workerConfig({ file: null, env: { ...fakeProviderEnv(fake), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });

    beforeAll(async () => {
      startTracing(config().telemetry.traces!);
      const { connection, namespace } = await testConnection();
      client = new Client({ connection, namespace, interceptors: { workflow: tracingClientInterceptors() } });
    });

    it('names the run, kind and agent on every project span, the sub-agent by its name', async () => {
      fake.respond((request) => {
        const { agent, answers } = who(request);
        if (agent !== 'parent') return reply.text('alpha is 1');
        return answers === 0
          ? reply.toolCalls([{ name: 'researcher', arguments: { task: 'alpha' }, id: 'toolu_alpha' }])
          : reply.text('Alpha is 1.');
      });
      const { id, traceId } = await withWorker({ config: config() }, async ({ taskQueue }) => {
        const agents = new AgentClient(client, taskQueue);
        const started = await trace.getTracer('backend').startActiveSpan('backend request', async (span) => {
          try {
            return { id: await agents.start({ task: 'Find alpha.', model: PRIMARY, agents: AGENTS }), span };
          } finally {
            span.end();
          }
        });
        expect(await agents.result(started.id)).toMatchObject({ status: 'completed', finalText: 'Alpha is 1.' });
        return { id: started.id, traceId: started.span.spanContext().traceId };
      });
      await currentTracing()!.flush();
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      const child = `${id}/researcher-toolu_alpha`;

      const runs = named(spans, /^invoke_agent /);
      expect(
        runs.map((s) => [s.name, s.attributes['gen_ai.agent.name'], s.attributes['durable_agents.run_id']]).sort(),
      ).toEqual([
        ['invoke_agent react', 'react', id],
        ['invoke_agent researcher', 'researcher', child],
      ]);
      const project = named(spans, /^(invoke_agent|turn|chat|execute_tool) /).concat(named(spans, /^turn$/));
      const byRun = (runId: string) => project.filter((s) => s.attributes['durable_agents.run_id'] === runId);
      expect(project.every((s) => s.attributes['durable_agents.agent_kind'] === 'react')).toBe(true);
      expect(byRun(id).length + byRun(child).length).toBe(project.length);
      expect(new Set(byRun(id).map((s) => s.attributes['gen_ai.agent.name']))).toEqual(new Set(['react']));
      expect(new Set(byRun(child).map((s) => s.attributes['gen_ai.agent.name']))).toEqual(new Set(['researcher']));
      expect(named(byRun(id), /^chat /)).toHaveLength(2);
      expect(named(byRun(child), /^chat /)).toHaveLength(1);
    }, 120_000);
  });
});
