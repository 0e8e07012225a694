// What the gateway adds to the first token: N concurrent streaming clients over AG-UI (`@ag-ui/client`)
// and then N over Open Responses (the `openai` SDK's stream), each run watched at the same time
// through the client library (`AgentClient.watch`), as the baseline. Time to first token is measured
// from the client's request for both; the gateway runs in this process on the runs' own client, as
// `durable-agents serve` does. Each run answers with one text that streams over about a second.
// Run: npm run bench (or node -r ./scripts/register-ts.js bench/gateway.ts [clients] [--smoke]).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpAgent } from '@ag-ui/client';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { AgentClient } from '../src/client';
import { startGateway } from '../src/gateway';
import { reply, startFakeProvider } from '../src/testing/fake-provider';
import { FileContentStore } from '../src/store';
import { ToolRegistry } from '../src/tools';
import { agentWorker, benchArgs, figure, percentile, round, runBench, startBenchServer, writeBenchResult } from './kit';

const args = benchArgs();
const CLIENTS = args.sizes[0] ?? (args.smoke ? 4 : 100);
const ANSWER = 'Streaming a short answer, piece by piece, as a model writes. '.repeat(4).slice(0, 240);
const MODEL = 'anthropic/claude-sonnet-4-6';

interface Sample {
  /** ms from the request to the first token at the protocol's client. */
  gateway: number;
  /** ms from the same request to the first token of the same run at a client-library watcher. */
  watch: number;
  text: string;
}

/** The first token of a run at a watcher of the client library, in ms since `t0`. */
async function watchFirstToken(agents: AgentClient, id: string, t0: number): Promise<number> {
  for await (const item of agents.watch(id)) if (item.topic === 'tokens' && item.delta.text) return Date.now() - t0;
  return Number.NaN;
}

function agUiClient(url: string, agents: AgentClient, i: number): Promise<Sample> {
  const runId = `bench-${process.pid}-${i}`;
  const t0 = Date.now();
  let gateway = Number.NaN;
  let text = '';
  let watch: Promise<number> | undefined;
  return new Promise((resolve, reject) =>
    new HttpAgent({ url: `${url}/ag-ui/reader` })
      .run({
        threadId: runId,
        runId,
        messages: [{ id: 'u', role: 'user', content: 'Answer.' }],
        tools: [],
        context: [],
      })
      .subscribe({
        next: (e) => {
          if (e.type === 'RUN_STARTED') watch = watchFirstToken(agents, `reader:${runId}`, t0);
          if (e.type === 'TEXT_MESSAGE_CONTENT') {
            if (Number.isNaN(gateway)) gateway = Date.now() - t0;
            text += (e as unknown as { delta: string }).delta;
          }
        },
        error: reject,
        complete: () => void (watch ?? Promise.resolve(Number.NaN)).then((w) => resolve({ gateway, watch: w, text })),
      }),
  );
}

async function responsesClient(openai: OpenAI, agents: AgentClient): Promise<Sample> {
  const t0 = Date.now();
  let gateway = Number.NaN;
  let text = '';
  let watch: Promise<number> | undefined;
  const stream = openai.responses.stream({ model: 'reader', input: 'Answer.' });
  for await (const e of stream) {
    if (e.type === 'response.created') watch = watchFirstToken(agents, e.response.id, t0);
    if (e.type === 'response.output_text.delta') {
      if (Number.isNaN(gateway)) gateway = Date.now() - t0;
      text += e.delta;
    }
  }
  return { gateway, watch: await (watch ?? Promise.resolve(Number.NaN)), text };
}

function figuresOf(name: string, label: string, samples: Sample[]) {
  const ok = samples.filter((s) => s.text === ANSWER && Number.isFinite(s.gateway) && Number.isFinite(s.watch));
  const at = (p: number, key: 'gateway' | 'watch') =>
    percentile(
      ok.map((s) => s[key]),
      p,
    );
  return {
    [`${name}Completed`]: figure(
      ok.length / samples.length,
      'share',
      `${CLIENTS} ${label} clients: share whose whole answer arrived`,
      { target: '>= 1' },
    ),
    [`${name}FirstTokenP50Ms`]: figure(
      at(50, 'gateway'),
      'ms',
      `${CLIENTS} ${label} clients: first token at the client, p50 (baseline: the same runs watched through the client library)`,
      { baseline: at(50, 'watch') },
    ),
    [`${name}FirstTokenP95Ms`]: figure(
      at(95, 'gateway'),
      'ms',
      `${CLIENTS} ${label} clients: first token at the client, p95 (baseline: watched)`,
      { baseline: at(95, 'watch') },
    ),
  };
}

async function main(): Promise<boolean> {
  const server = await startBenchServer(args);
  const fake = await startFakeProvider();
  fake.respond(() => reply.text(ANSWER, { eventDelayMs: 35 }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gateway-'));
  const registry = new ToolRegistry();
  const parts = await agentWorker(fake, registry, dir);
  try {
    const connection = await NativeConnection.connect({ address: server.address });
    const client = new Client({ connection: await Connection.connect({ address: server.address }) });
    const taskQueue = 'bench-gateway';
    const worker = await Worker.create({ connection, taskQueue, plugins: [parts.plugin()] });
    const store = new FileContentStore(parts.storeDir);
    const agents = new AgentClient(client, taskQueue, { store });
    const gateway = await startGateway({
      agents,
      published: { reader: { description: 'answers', model: MODEL } },
      port: 0,
      tokens: store,
    });
    const { agUi, responses } = await worker.runUntil(async () => {
      const agUi = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => agUiClient(gateway.url, agents, i)));
      const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'loopback', maxRetries: 0 });
      const responses = await Promise.all(Array.from({ length: CLIENTS }, () => responsesClient(openai, agents)));
      return { agUi, responses };
    });
    await gateway.close();
    const figures = { ...figuresOf('agUi', 'AG-UI', agUi), ...figuresOf('responses', 'Open Responses', responses) };
    writeBenchResult('gateway', figures, {
      args,
      description: `${CLIENTS} concurrent streaming clients over AG-UI, then over Open Responses, each run also watched through the client library; one worker, server, gateway and fake on this machine`,
      details: {
        clients: CLIENTS,
        answerChars: ANSWER.length,
        pieceMs: 35,
        overheadP50Ms: {
          agUi: round(
            percentile(
              agUi.map((s) => s.gateway - s.watch),
              50,
            ),
          ),
          responses: round(
            percentile(
              responses.map((s) => s.gateway - s.watch),
              50,
            ),
          ),
        },
      },
    });
    return Object.values(figures).every((f) => f.met !== false);
  } finally {
    await registry.close();
    await fake.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
