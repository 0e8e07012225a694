// What streaming and watching cost a run's history: a tool conversation (each answer streams over
// about a second, as a model writes) run three ways on a real dev server: unstreamed and unwatched,
// streamed and watched with its tokens (`watch`, as `run --watch` does, reading the tokens from the
// workers' store), and unstreamed but watched for its events. Prints the history events each turn
// adds, by type, and the payload bytes; the baseline of the watched figures is the same
// conversation unstreamed and unwatched.
// Run: npm run bench (or node -r ./scripts/register-ts.js bench/watch-history.ts [turns] [--smoke]).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient } from '../src/client';
import { FileContentStore } from '../src/store';
import { reply, startFakeProvider, type RecordedRequest } from '../src/testing/fake-provider';
import { ToolRegistry } from '../src/tools';
import {
  agentWorker,
  benchArgs,
  eventTypeName,
  figure,
  payloadBytes,
  quickLookupTool,
  round,
  runBench,
  startBenchServer,
  writeBenchResult,
} from './kit';

const args = benchArgs();
const TURNS = args.sizes[0] ?? (args.smoke ? 3 : 10);
/** About a second of streaming: 30 pieces of 8 characters, 35 ms apart. */
const ANSWER = 'Looking that up before answering. '.repeat(7).slice(0, 240);
const PIECE_MS = 35;

type Block = { type?: string };

/** Decides from the request alone: a tool call per turn until `TURNS` results, then the answer. */
function responder(request: RecordedRequest) {
  const messages = (request.body.messages ?? []) as { content: string | Block[] }[];
  const results = messages.reduce(
    (n, m) => n + (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result').length : 0),
    0,
  );
  if (results >= TURNS - 1) return reply.text(ANSWER, { eventDelayMs: PIECE_MS });
  return reply.toolCalls([{ name: 'lookup', arguments: { n: results + 1 } }], {
    text: ANSWER,
    eventDelayMs: PIECE_MS,
  });
}

interface Case {
  eventsPerTurn: number;
  payloadBytesPerTurn: number;
  /** Events per turn by type (the run's whole history over its turns). */
  types: Record<string, number>;
  /** Stream polls (updates) and token batches (signals) per turn. */
  pollsPerTurn: number;
  batchesPerTurn: number;
}

async function runCase(agents: AgentClient, client: Client, mode: 'alone' | 'watched' | 'events'): Promise<Case> {
  const id = await agents.start({
    task: 'Look things up.',
    model: 'anthropic/claude-sonnet-4-6',
    stream: mode === 'watched',
    limits: { maxTurns: TURNS + 1 },
  });
  let tokens = 0;
  if (mode === 'alone') await agents.result(id);
  else for await (const item of agents.watch(id, { tokens: mode === 'watched' })) if (item.topic === 'tokens') tokens++;
  if (mode === 'watched' && tokens === 0)
    throw new Error('the watched run showed no token: the watch did not read them');
  const result = await agents.result(id);
  if (result.turns !== TURNS) throw new Error(`the ${mode} run took ${result.turns} turns, not ${TURNS}`);
  const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  const types: Record<string, number> = {};
  for (const e of events) types[eventTypeName(e)] = (types[eventTypeName(e)] ?? 0) + 1;
  const perTurn = (n: number) => round(n / TURNS, 2);
  return {
    eventsPerTurn: perTurn(events.length),
    payloadBytesPerTurn: Math.round(events.reduce((sum, e) => sum + payloadBytes(e), 0) / TURNS),
    types: Object.fromEntries(Object.entries(types).map(([k, v]) => [k, perTurn(v)])),
    pollsPerTurn: perTurn(types.WORKFLOW_EXECUTION_UPDATE_ACCEPTED ?? 0),
    batchesPerTurn: perTurn(types.WORKFLOW_EXECUTION_SIGNALED ?? 0),
  };
}

async function main(): Promise<void> {
  const server = await startBenchServer(args);
  const fake = await startFakeProvider();
  fake.respond(responder);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-watch-'));
  const registry = new ToolRegistry();
  registry.register(quickLookupTool('found it'));
  const parts = await agentWorker(fake, registry, dir);
  const watcherStore = new FileContentStore(parts.storeDir);
  try {
    const connection = await NativeConnection.connect({ address: server.address });
    const client = new Client({ connection: await Connection.connect({ address: server.address }) });
    const taskQueue = 'bench-watch-history';
    const worker = await Worker.create({ connection, taskQueue, plugins: [parts.plugin()] });
    const cases = await worker.runUntil(async () => {
      const agents = new AgentClient(client, taskQueue, { store: watcherStore });
      return {
        alone: await runCase(agents, client, 'alone'),
        watched: await runCase(agents, client, 'watched'),
        events: await runCase(agents, client, 'events'),
      };
    });
    const { alone, watched, events } = cases;
    writeBenchResult(
      'watch-history',
      {
        watchedEventsPerTurn: figure(watched.eventsPerTurn, 'events', 'history events per turn, streamed and watched', {
          baseline: alone.eventsPerTurn,
        }),
        watchedEventsRatio: figure(
          watched.eventsPerTurn / alone.eventsPerTurn,
          '×',
          'history events per turn, streamed and watched, over unstreamed',
          { target: '<= 1' },
        ),
        watchedPollsPerTurn: figure(watched.pollsPerTurn, 'updates', 'stream polls per turn in history, watched'),
        watchedPayloadBytesPerTurn: figure(watched.payloadBytesPerTurn, 'B', 'payload bytes per turn, watched', {
          baseline: alone.payloadBytesPerTurn,
        }),
        eventsWatchEventsPerTurn: figure(events.eventsPerTurn, 'events', 'history events per turn, events watched'),
      },
      {
        args,
        description: `a ${TURNS}-turn tool conversation whose answers stream over about a second each; baseline: the run unstreamed and unwatched`,
        details: { turns: TURNS, alone, watched, events },
      },
    );
  } finally {
    await watcherStore.close();
    await registry.close();
    await fake.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
