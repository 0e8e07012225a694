/**
 * Runs export their traces over OTLP/HTTP as the OpenTelemetry variables say, into a receiver in
 * this test: a backend's span (the test's own, around the start) continues into the run, its turns,
 * model calls, tool calls and approval waits, with the GenAI attributes; no span comes twice, also
 * when every workflow task replays or a worker is killed mid-run and another takes over; and no
 * key or message body is in any byte the exporters sent.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { trace } from '@opentelemetry/api';
import { Client } from '@temporalio/client';
import { AgentClient } from '../../src/client';
import { FileContentStore } from '../../src/store';
import { currentTracing, startTracing, tracingClientInterceptors } from '../../src/telemetry';
import { fakeProviderEnv, reply, startFakeProvider, type FakeProvider } from '../../src/testing/fake-provider';
import { ToolRegistry, defineTool } from '../../src/tools';
import { workerConfig, type WorkerConfig } from '../../src/worker/worker-config';
import { PRIMARY, waitFor, waitForState } from '../agent/agent-kit';
import { ancestorsOf, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../kit/otlp-receiver';
import { eventually } from '../kit/eventually';
import { runCli } from '../kit/cli';
import { testConnection, withWorker, type WithWorkerOptions } from '../kit/temporal';
import { startWorkerProcess, type WorkerProcess } from '../kit/worker-process';

const KEY = 'sk-canary-trace-0123456789abcdef';
const TASK = 'Note the number of TASK-CANARY-5e1f, then say what you noted.';
const ARGS = 'ARGS-CANARY-77aa';
const RESULT = 'RESULT-CANARY-9b2c';
const ANSWER = 'ANSWER-CANARY-c0de';
const CANARIES = [KEY, 'TASK-CANARY-5e1f', ARGS, RESULT, ANSWER];

/** The spans of one trace. */
const inTrace = (receiver: OtlpReceiver, traceId: string): ReceivedSpan[] =>
  receiver.spans.filter((span) => span.traceId === traceId);

const named = (spans: ReceivedSpan[], name: string): ReceivedSpan[] => spans.filter((span) => span.name === name);

/** Starts a run inside a span of the test's own, as a backend's request handler would. */
async function startInBackendSpan(
  agents: AgentClient,
  options: Parameters<AgentClient['start']>[0],
): Promise<{ id: string; traceId: string; rootSpanId: string }> {
  return trace.getTracer('backend').startActiveSpan('backend request', async (span) => {
    try {
      const id = await agents.start(options);
      return { id, traceId: span.spanContext().traceId, rootSpanId: span.spanContext().spanId };
    } finally {
      span.end();
    }
  });
}

/** No received byte holds a key or a message body. */
function expectNoCanaries(receiver: OtlpReceiver): void {
  expect(receiver.bodies.length).toBeGreaterThan(0);
  for (const body of receiver.bodies)
    for (const canary of CANARIES)
      expect({ canary, found: body.includes(Buffer.from(canary)) }).toEqual({ canary, found: false });
}

describe('traces of agent runs', () => {
  let receiver: OtlpReceiver;
  let fake: FakeProvider;
  let dir: string;
  let config: WorkerConfig;
  let store: FileContentStore;
  let client: Client;
  const tools = new ToolRegistry().register(
    defineTool({
      name: 'note',
      description: 'Notes a text.',
      parameters: z.object({ text: z.string() }),
      sideEffects: true,
      execute: ({ text }) => `${RESULT}: noted ${text.length} characters`,
    }),
  );

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    fake = await startFakeProvider();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'traces-'));
    store = new FileContentStore(path.join(dir, 'store'));
    config = workerConfig({
      file: null,
      env: {
        ...fakeProviderEnv(fake, KEY),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'agents-in-process',
      },
    });
    // The test's process is the backend: its own spans go to the same receiver.
    startTracing(config.telemetry.traces!, config.secrets);
    const { connection, namespace } = await testConnection();
    client = new Client({ connection, namespace, interceptors: { workflow: tracingClientInterceptors() } });
  });
  afterAll(async () => {
    await fake?.close();
    await receiver?.close();
    await store?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => fake.reset());

  /** A run that calls `note` once and answers, started in a backend span on a worker with `options`: its trace. */
  async function noteRun(options: WithWorkerOptions): Promise<ReceivedSpan[]> {
    fake.script(reply.toolCalls([{ name: 'note', arguments: { text: ARGS } }]), reply.text(ANSWER));
    const { traceId } = await withWorker(options, async ({ taskQueue }) => {
      const agents = new AgentClient(client, taskQueue);
      const started = await startInBackendSpan(agents, { task: TASK, model: PRIMARY });
      await agents.result(started.id);
      return started;
    });
    await currentTracing()!.flush();
    return inTrace(receiver, traceId);
  }

  it('exports the run, its turns, model calls, tool call and approval wait in the trace of the span that started it', async () => {
    fake.script(reply.toolCalls([{ name: 'note', arguments: { text: ARGS } }]), reply.text(ANSWER));
    const { id, traceId, rootSpanId, callId, result } = await withWorker(
      { config, store, tools },
      async ({ taskQueue }) => {
        const agents = new AgentClient(client, taskQueue);
        const started = await startInBackendSpan(agents, { tools: { approve: ['note'] }, task: TASK, model: PRIMARY });
        const waiting = await waitForState(agents, started.id, (s) => s.pendingApprovals.length > 0);
        const pending = waiting.pendingApprovals[0].toolCallId;
        await agents.approve(started.id, pending);
        return { ...started, callId: pending, result: await agents.result(started.id) };
      },
    );
    expect(result).toMatchObject({ status: 'completed', finalText: ANSWER });
    await currentTracing()!.flush();

    const spans = inTrace(receiver, traceId);
    const names = spans.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'backend request',
        'StartWorkflow:reactAgentWorkflow',
        'RunWorkflow:reactAgentWorkflow',
        'invoke_agent react',
        'turn',
        `chat ${PRIMARY.split('/')[1]}`,
        'execute_tool note',
        'await_approval',
      ]),
    );
    // Every span descends from the backend's.
    for (const span of spans.filter((s) => s.spanId !== rootSpanId))
      expect({ span: span.name, fromBackend: ancestorsOf(span, spans).some((a) => a.spanId === rootSpanId) }).toEqual({
        span: span.name,
        fromBackend: true,
      });

    const [run] = named(spans, 'invoke_agent react');
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'react',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-6',
      'durable_agents.run_id': id,
      'durable_agents.agent_kind': 'react',
      'durable_agents.stop_reason': 'completed',
      'durable_agents.turn': 2,
    });
    expect(run.attributes['durable_agents.cost_usd']).toBeGreaterThan(0);

    const turns = named(spans, 'turn');
    expect(turns.map((t) => t.attributes['durable_agents.turn']).sort()).toEqual([1, 2]);
    for (const turn of turns) expect(ancestorsOf(turn, spans)[0].name).toBe('invoke_agent react');

    // Every project span names the run: its workflow id, kind and agent.
    const ofRun = { 'durable_agents.run_id': id, 'durable_agents.agent_kind': 'react', 'gen_ai.agent.name': 'react' };
    const project = spans.filter((s) => /^(invoke_agent|turn|chat|execute_tool|await_approval)\b/.test(s.name));
    expect(project.length).toBeGreaterThanOrEqual(7);
    for (const span of project) expect({ span: span.name, ...span.attributes }).toMatchObject(ofRun);

    const chats = named(spans, 'chat claude-sonnet-4-6');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-sonnet-4-6',
        'gen_ai.response.model': expect.any(String),
        'gen_ai.usage.input_tokens': expect.any(Number),
        'gen_ai.usage.output_tokens': expect.any(Number),
        'gen_ai.usage.cache_read.input_tokens': expect.any(Number),
        'durable_agents.cost_usd': expect.any(Number),
      });
      expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(ancestorsOf(chat, spans).map((a) => a.name)).toEqual(
        expect.arrayContaining(['RunActivity:callModel', 'turn', 'invoke_agent react']),
      );
    }
    expect(chats.map((c) => c.attributes['gen_ai.response.finish_reasons']).sort()).toEqual([['stop'], ['tool_use']]);

    const [tool] = named(spans, 'execute_tool note');
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'note',
      'gen_ai.tool.call.id': callId,
      'durable_agents.tool.is_error': false,
    });
    expect(ancestorsOf(tool, spans).find((a) => a.name === 'turn')?.attributes['durable_agents.turn']).toBe(1);

    const [wait] = named(spans, 'await_approval');
    expect(wait.attributes).toMatchObject({
      'durable_agents.approval.tools': ['note'],
      'durable_agents.approval.outcome': 'decided',
      'durable_agents.run_id': id,
    });
    expect(ancestorsOf(wait, spans)[0].name).toBe('turn');

    expect(new Set(receiver.spans.map((s) => s.spanId)).size).toBe(receiver.spans.length);
    expect(receiver.contentTypes.every((type) => type.startsWith('application/x-protobuf'))).toBe(true);
    expectNoCanaries(receiver);
  }, 120_000);

  it('exports each span once when every workflow task replays the run from its history', async () => {
    const spans = await noteRun({ config, store, tools, maxCachedWorkflows: 0 });
    expect(named(spans, 'RunWorkflow:reactAgentWorkflow')).toHaveLength(1);
    expect(named(spans, 'invoke_agent react')).toHaveLength(1);
    expect(named(spans, 'turn')).toHaveLength(2);
    expect(named(spans, 'chat claude-sonnet-4-6')).toHaveLength(2);
    expect(named(spans, 'execute_tool note')).toHaveLength(1);
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
    expectNoCanaries(receiver);
  }, 120_000);

  it('makes no span for a run whose starter does not trace, on a worker that exports', async () => {
    fake.script(reply.toolCalls([{ name: 'note', arguments: { text: ARGS } }]), reply.text(ANSWER));
    const { connection, namespace } = await testConnection();
    const untraced = new Client({ connection, namespace });
    const before = receiver.spans.length;
    await withWorker({ config, store, tools }, async ({ taskQueue }) => {
      const agents = new AgentClient(untraced, taskQueue);
      const started = await agents.start({ task: TASK, model: PRIMARY });
      expect(await agents.result(started)).toMatchObject({ status: 'completed', finalText: ANSWER });
    });
    await currentTracing()!.flush();
    // Not the project's spans, nor the provider SDK's own, nor any other.
    expect(receiver.spans.slice(before).map((span) => span.name)).toEqual([]);
  }, 120_000);

  it('continues the trace of a `durable-agents run` command into the run', async () => {
    fake.script(reply.text(ANSWER));
    const { address, namespace } = await testConnection();
    const cli = await withWorker({ config, store, tools }, ({ taskQueue }) =>
      runCli(['--task-queue', taskQueue, 'run', TASK, '--model', PRIMARY], {
        env: {
          TEMPORAL_ADDRESS: address,
          TEMPORAL_NAMESPACE: namespace,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_SERVICE_NAME: 'agents-cli',
        },
      }),
    );
    expect(cli).toMatchObject({ code: 0, stdout: expect.stringContaining(ANSWER) });
    await currentTracing()!.flush();
    const [command] = receiver.spans.filter((s) => s.name === 'durable-agents run' && s.service === 'agents-cli');
    expect(command).toBeDefined();
    // The run's span comes from the worker's export, which may still be on its way to the receiver.
    const spans = await eventually(
      async () => inTrace(receiver, command.traceId),
      (found) => named(found, 'invoke_agent react').length > 0,
      "the run's span in the command's trace",
      10_000,
    );
    const [start] = named(spans, 'StartWorkflow:reactAgentWorkflow');
    expect(start).toMatchObject({ service: 'agents-cli', parentSpanId: command.spanId });
    const [run] = named(spans, 'invoke_agent react');
    expect(run.service).toBe('agents-in-process');
    expect(ancestorsOf(run, spans).map((a) => a.spanId)).toEqual(
      expect.arrayContaining([start.spanId, command.spanId]),
    );
  }, 120_000);

  describe('with a worker killed mid-run', () => {
    const workers: WorkerProcess[] = [];
    afterAll(async () => {
      for (const worker of workers) await worker.kill();
    });

    it('exports the rest of the trace from the worker that takes over, each span once', async () => {
      fs.writeFileSync(path.join(dir, 'notes.txt'), `${RESULT}\n`);
      let arrivals = 0;
      fake.respond(() => {
        arrivals += 1;
        if (arrivals === 1) return reply.toolCalls([{ name: 'fs_read', arguments: { path: 'notes.txt' } }]);
        // The first worker's second model call waits on the provider until that worker dies.
        return arrivals === 2 ? reply.hang() : reply.text(ANSWER);
      });
      const taskQueue = `traces-restart-${process.pid}-${Date.now()}`;
      const host = (service: string) => ({
        taskQueue,
        cwd: dir,
        env: {
          ...fakeProviderEnv(fake, KEY),
          DURABLE_AGENTS_STORE_DIR: 'store',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
          OTEL_SERVICE_NAME: service,
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
      });
      const first = await startWorkerProcess(host('worker-a'));
      workers.push(first);
      const agents = new AgentClient(client, taskQueue);
      const { id, traceId, rootSpanId } = await startInBackendSpan(agents, {
        task: TASK,
        model: PRIMARY,
        tools: { allow: ['fs_read'], workspaceRoot: dir },
      });
      await waitFor(() => arrivals === 2, "the first worker's second model call", 60_000);
      // What the first worker finished before it dies has reached the receiver.
      await waitFor(
        () => inTrace(receiver, traceId).some((s) => s.name === 'execute_tool fs_read'),
        "the first worker's tool span",
        30_000,
      );
      workers.push(await startWorkerProcess(host('worker-b')));
      await first.kill();
      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: ANSWER });
      await waitFor(
        () => inTrace(receiver, traceId).some((s) => s.name === 'invoke_agent react'),
        "the run's span from the second worker",
        30_000,
      );
      await currentTracing()!.flush();

      const spans = inTrace(receiver, traceId);
      const from = (name: string) => named(spans, name).map((s) => s.service);
      expect(from('turn').sort()).toEqual(['worker-a', 'worker-b']);
      expect(from('execute_tool fs_read')).toEqual(['worker-a']);
      expect(from('chat claude-sonnet-4-6').sort()).toEqual(['worker-a', 'worker-b']);
      expect(from('invoke_agent react')).toEqual(['worker-b']);
      expect(from('RunWorkflow:reactAgentWorkflow')).toEqual(['worker-b']);
      // One trace with no gap: every span's parent arrived, up to the backend's span.
      for (const span of spans.filter((s) => s.spanId !== rootSpanId))
        expect({ span: span.name, parent: spans.some((p) => p.spanId === span.parentSpanId) }).toEqual({
          span: span.name,
          parent: true,
        });
      expect(new Set(receiver.spans.map((s) => s.spanId)).size).toBe(receiver.spans.length);
      expect(receiver.contentTypes.some((type) => type.startsWith('application/json'))).toBe(true);
      expectNoCanaries(receiver);
    }, 180_000);
  });

  describe('with message content opted in', () => {
    it('puts the messages, tool arguments and results in the spans, with keys redacted', async () => {
      const before = receiver.bodies.length;
      const leaky = new ToolRegistry().register(
        defineTool({
          name: 'note',
          description: 'Notes a text.',
          parameters: z.object({ text: z.string() }),
          execute: () => `${RESULT}, and the key is ${KEY}`,
        }),
      );
      const optedIn = workerConfig({
        file: null,
        env: {
          ...fakeProviderEnv(fake, KEY),
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
        },
      });
      const spans = await noteRun({ config: optedIn, store, tools: leaky });
      const [first] = named(spans, 'chat claude-sonnet-4-6').filter((c) =>
        String(c.attributes['gen_ai.input.messages']).includes('TASK-CANARY-5e1f'),
      );
      expect(first).toBeDefined();
      const [tool] = named(spans, 'execute_tool note');
      expect(tool.attributes['gen_ai.tool.call.arguments']).toContain(ARGS);
      expect(tool.attributes['gen_ai.tool.call.result']).toBe(`${RESULT}, and the key is [redacted]`);
      const sent = Buffer.concat(receiver.bodies.slice(before));
      expect(sent.includes(Buffer.from(ANSWER))).toBe(true);
      expect(sent.includes(Buffer.from(KEY))).toBe(false);
    }, 120_000);
  });
});
