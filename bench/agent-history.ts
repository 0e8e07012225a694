// History growth of the agent loop: a scripted 200-turn tool-calling conversation (1 KiB model
// replies, 4 KiB tool results) on a real dev server; prints what each turn adds to history: bytes,
// events (by type) and payload bytes (the `data` of every payload in the turn's events).
// Flat per-turn bytes mean the transcript never travels through history (FIELD.md, the O(n²) trap).
// Run: npm run bench (or node -r ./scripts/register-ts.js bench/agent-history.ts [turns] [--smoke]).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient } from '../src/client';
import { reply, startFakeProvider, type RecordedRequest } from '../src/testing/fake-provider';
import { ToolRegistry } from '../src/tools';
import { agentWorker, quickLookupTool, benchArgs, figure, runBench, startBenchServer, writeBenchResult } from './kit';

const args = benchArgs();
const TURNS = args.sizes[0] ?? (args.smoke ? 10 : 200);
const REPLY_TEXT = 'r'.repeat(1024);
const TOOL_RESULT = 't'.repeat(4096);

let turn = 0;
function responder(request: RecordedRequest) {
  // Past 80 % of the 200k window the loop summarises older turns: answer those calls with a summary.
  if (JSON.stringify(request.body.system ?? '').includes('You compress conversations'))
    return reply.text(`Summary: ${turn} lookups so far.`);
  turn += 1;
  if (turn >= TURNS) return reply.text(`Done after ${turn} turns.`);
  return reply.toolCalls([{ name: 'lookup', arguments: { n: turn } }], {
    text: REPLY_TEXT,
    usage: { input: 1000, output: 300 },
  });
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const eventBytes = (e: HistoryEvent): number => temporal.api.history.v1.HistoryEvent.encode(e).finish().length;

/** Bytes of payload data in an event: every `{ metadata, data }` object anywhere in its attributes. */
function payloadBytes(value: unknown): number {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return 0;
  if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + payloadBytes(v), 0);
  const obj = value as Record<string, unknown>;
  if (obj.data instanceof Uint8Array && 'metadata' in obj) return obj.data.length;
  return Object.values(obj).reduce((sum: number, v) => sum + payloadBytes(v), 0);
}

const eventTypeName = (e: HistoryEvent): string =>
  (temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType)).replace(/^EVENT_TYPE_/, '');

const average = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const round1 = (x: number): number => Math.round(x * 10) / 10;

async function main(): Promise<boolean> {
  const server = await startBenchServer(args);
  const fake = await startFakeProvider();
  fake.respond(responder);
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-'));
  const registry = new ToolRegistry();
  registry.register(quickLookupTool(TOOL_RESULT));
  const parts = await agentWorker(fake, registry, storeDir);
  try {
    const connection = await NativeConnection.connect({ address: server.address });
    const client = new Client({ connection: await Connection.connect({ address: server.address }) });
    const taskQueue = 'bench-agent-history';
    const worker = await Worker.create({ connection, taskQueue, plugins: [parts.plugin()] });
    const started = Date.now();
    const result = await worker.runUntil(async () => {
      const agents = new AgentClient(client, taskQueue);
      const id = await agents.start({
        task: 'Look up everything.',
        model: 'anthropic/claude-sonnet-4-6',
        limits: { maxTurns: TURNS + 1 },
      });
      const res = await agents.result(id);
      return { res, state: await agents.state(id), history: await client.workflow.getHandle(id).fetchHistory() };
    });
    const seconds = (Date.now() - started) / 1000;
    const events = result.history.events ?? [];
    const turnStarts = events.flatMap((e, i) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [i] : [],
    );
    // A turn: from its model call's scheduling to the next one's.
    const turnEvents = turnStarts.map((start, k) => events.slice(start, turnStarts[k + 1] ?? events.length));
    const perTurn = turnEvents.map((es) => es.reduce((sum, e) => sum + eventBytes(e), 0));
    const total = events.reduce((sum, e) => sum + eventBytes(e), 0);
    const avg = (xs: number[]) => Math.round(average(xs));
    const toolTurns = turnEvents.slice(0, -1); // the last turn has no tool call
    const body = perTurn.slice(0, -1);
    const eventsPerTurn = toolTurns.map((es) => es.length);
    const payloadPerTurn = toolTurns.map((es) => es.reduce((sum, e) => sum + payloadBytes(e), 0));
    const typesPerTurn: Record<string, { events: number; payloadBytes: number }> = {};
    for (const e of toolTurns.flat()) {
      const type = (typesPerTurn[eventTypeName(e)] ??= { events: 0, payloadBytes: 0 });
      type.events += 1;
      type.payloadBytes += payloadBytes(e);
    }
    for (const type of Object.values(typesPerTurn)) {
      type.events = round1(type.events / toolTurns.length);
      type.payloadBytes = Math.round(type.payloadBytes / toolTurns.length);
    }
    const first = avg(body.slice(0, 10));
    const last = avg(body.slice(-10));
    // Carrying the transcript instead would add every earlier reply and result to each call.
    const naive = Array.from(
      { length: body.length },
      (_, n) => first + n * (REPLY_TEXT.length + TOOL_RESULT.length),
    ).reduce((a, b) => a + b, 0);
    const figures = {
      eventsPerToolTurn: figure(average(eventsPerTurn), 'events', 'history events per tool turn (mean)', {
        target: '<= 10',
      }),
      payloadBytesPerToolTurn: figure(average(payloadPerTurn), 'B', 'payload bytes per tool turn (mean)', {
        target: '<= 1024',
      }),
      bytesPerTurnLast10: figure(last, 'B', 'history bytes per turn, last 10 turns', {
        baseline: first,
      }),
      historyBytes: figure(total, 'B', `history bytes of the whole run`, { baseline: naive }),
    };
    writeBenchResult('agent-history', figures, {
      args,
      description: `a ${TURNS}-turn tool conversation (1 KiB replies, 4 KiB results); baselines: the first 10 turns, and carrying the transcript through history`,
      details: {
        turns: result.res.turns,
        status: result.res.stopReason,
        compactions: result.state.events.filter((e) => e.type === 'context_compacted').length,
        historyEvents: events.length,
        bytesPerTurnFirst10: first,
        bytesPerTurnMax: Math.max(...body),
        eventsPerToolTurnMax: Math.max(...eventsPerTurn),
        payloadBytesPerToolTurnMax: Math.max(...payloadPerTurn),
        eventTypesPerToolTurn: typesPerTurn,
        seconds,
      },
    });
    return figures.eventsPerToolTurn.met === true && figures.payloadBytesPerToolTurn.met === true;
  } finally {
    await registry.close();
    await fake.close();
    await server.stop();
    fs.rmSync(storeDir, { recursive: true, force: true });
  }
}

runBench(main);
