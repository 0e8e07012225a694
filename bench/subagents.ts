// Sub-agent fan-out: a parent whose first answer calls N sub-agents at once (default 10,
// maxParallelAgents N), each a child run of T turns (default 3: two quick tool calls, then its
// answer), against the fake provider answering every model call after 500 ms, on a dev server with
// one in-process worker. The fan-out lasts from the parent's answer with the N calls to its next
// model call (history timestamps: the first model call's completion to the second's scheduling),
// against the same span of a parent that calls one sub-agent: the baseline, one such child alone.
// Also the parent's history events each child adds: (events of the N-child parent − events of the
// one-child parent) / (N − 1). Sequential children would take N times the baseline.
// Run: node -r ./scripts/register-ts.js bench/subagents.ts [children] [turns] [--smoke]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient } from '../src/client';
import { reply, startFakeProvider, type RecordedRequest } from '../src/testing/fake-provider';
import { ToolRegistry } from '../src/tools';
import {
  agentWorker,
  benchArgs,
  eventMs,
  figure,
  quickLookupTool,
  round,
  runBench,
  startBenchServer,
  writeBenchResult,
} from './kit';

const args = benchArgs();
const CHILDREN = args.sizes[0] ?? (args.smoke ? 3 : 10);
const TURNS = args.sizes[1] ?? 3;
/** How long the fake takes to answer each model call. */
const MODEL_MS = 500;
const MODEL = 'anthropic/claude-sonnet-4-6';

type Block = { type?: string; text?: string };

/** Every answer from the request alone: the parent calls its N sub-agents, then answers; a child looks up T − 1 times, then answers. */
function responder(request: RecordedRequest) {
  const messages = (request.body.messages ?? []) as { role: string; content: string | Block[] }[];
  const child = JSON.stringify(request.body.system ?? '').includes('You are a researcher.');
  const answers = messages.filter((m) => m.role === 'assistant').length;
  const delay = { delayMs: MODEL_MS };
  if (!child) {
    const task = JSON.stringify(messages[0]?.content ?? '');
    const n = Number(/Ask (\d+) researchers/.exec(task)?.[1] ?? 1);
    if (answers > 0) return reply.text('All researchers answered.', delay);
    const calls = Array.from({ length: n }, (_, i) => ({
      name: 'researcher',
      arguments: { task: `Look up fact ${i + 1}.` },
      id: `toolu_${i + 1}`,
    }));
    return reply.toolCalls(calls, delay);
  }
  if (answers >= TURNS - 1) return reply.text('Found it.', delay);
  return reply.toolCalls([{ name: 'lookup', arguments: { n: answers + 1 } }], delay);
}

/** The fan-out span of a finished parent, and its history's length. */
async function fanOut(client: Client, id: string): Promise<{ spanMs: number; events: number }> {
  const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  const byId = new Map(events.map((e) => [String(e.eventId), e]));
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel');
  const firstDone = events.find(
    (e) =>
      e.activityTaskCompletedEventAttributes &&
      byId.get(String(e.activityTaskCompletedEventAttributes.scheduledEventId)) === scheduled[0],
  );
  return { spanMs: eventMs(scheduled[1]) - eventMs(firstDone), events: events.length };
}

async function main(): Promise<boolean> {
  const server = await startBenchServer(args);
  const fake = await startFakeProvider();
  fake.respond(responder);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-subagents-'));
  const registry = new ToolRegistry();
  registry.register(quickLookupTool('fact'));
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const parts = await agentWorker(fake, registry, dir);
    const client = new Client({ connection });
    const taskQueue = 'bench-subagents';
    const worker = await Worker.create({ connection, taskQueue, plugins: [parts.plugin()] });
    const measured = await worker.runUntil(async () => {
      const agents = new AgentClient(client, taskQueue);
      const parent = async (n: number) => {
        const id = await agents.start({
          task: `Ask ${n} researchers, one fact each.`,
          model: MODEL,
          limits: { maxParallelAgents: n },
          agents: {
            researcher: {
              description: 'Looks one fact up.',
              instructions: 'You are a researcher. Look the fact up, then answer in one line.',
              maxTurns: TURNS + 1,
            },
          },
        });
        const result = await agents.result(id);
        if (result.stopReason !== 'completed' || result.children?.length !== n)
          throw new Error(
            `the parent of ${n} ended ${result.stopReason} with ${result.children?.length ?? 0} children`,
          );
        return fanOut(client, id);
      };
      // A warm-up, then the baseline and the fan-out.
      await parent(1);
      const one = await parent(1);
      const many = await parent(CHILDREN);
      return { one, many };
    });
    const { one, many } = measured;
    const perChild = CHILDREN > 1 ? (many.events - one.events) / (CHILDREN - 1) : Number.NaN;
    const figures = {
      fanOutMs: figure(many.spanMs, 'ms', `fan-out to ${CHILDREN} sub-agents of ${TURNS} turns, answer to next call`, {
        baseline: one.spanMs,
      }),
      fanOutRatio: figure(many.spanMs / one.spanMs, '×', `fan-out of ${CHILDREN} over one child alone`, {
        target: '<= 1.5',
      }),
      eventsPerChild: figure(perChild, 'events', "parent's history events each child adds", { target: '<= 10' }),
    };
    writeBenchResult('subagents', figures, {
      args,
      description:
        `a parent calling ${CHILDREN} sub-agents at once (maxParallelAgents ${CHILDREN}), each a child run of ` +
        `${TURNS} turns, every model call answered after ${MODEL_MS} ms, against a parent calling one`,
      details: {
        modelMs: MODEL_MS,
        oneChild: { spanMs: round(one.spanMs), historyEvents: one.events },
        fanOut: { spanMs: round(many.spanMs), historyEvents: many.events },
        sequentialWouldTakeMs: round(one.spanMs * CHILDREN),
      },
    });
    return figures.fanOutRatio.met === true && figures.eventsPerChild.met === true;
  } finally {
    await connection.close();
    await registry.close();
    await fake.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
