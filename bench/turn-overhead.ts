// Time Temporal adds to each turn of a tool loop: a scripted N-turn conversation (default 200; a
// tool call each turn, a 1 KiB result) run as an agent on a dev server started as the project
// starts it, against the same loop in-process (the real OpenAI SDK driving the same fake provider,
// the same tool run by the same registry, no Temporal). Turn k of the agent run lasts from its k-th
// model call's scheduling to the next one's in history; the history timestamps split it into
// workflow-task wait (schedule-to-start) and work, activity wait and work, and the rest.
// Run: node -r ./scripts/register-ts.js bench/turn-overhead.ts [turns] [--smoke]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { Client } from '@temporalio/client';
import { temporal as temporalProto, type temporal } from '@temporalio/proto';
import { NativeConnection, Worker, type ActivityInterceptorsFactory } from '@temporalio/worker';
import { AgentClient } from '../src/client';
import { reply, startFakeProvider } from '../src/testing/fake-provider';
import { ToolRegistry } from '../src/tools';
import {
  agentWorker,
  quickLookupTool,
  benchArgs,
  eventMs,
  figure,
  median,
  round,
  runBench,
  startBenchServer,
  writeBenchResult,
} from './kit';

const args = benchArgs();
const TURNS = args.sizes[0] ?? (args.smoke ? 12 : 200);
const STEADY_FROM = Math.min(10, TURNS - 2);
const MODEL = 'gpt-4.1';
const TOOL_RESULT = 'x'.repeat(1024);

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const ms = eventMs;

/** Per turn of the agent run: its length and where the time went, from history timestamps. */
interface TurnSplit {
  totalMs: number;
  workflowTaskWaitMs: number;
  workflowTaskMs: number;
  activityWaitMs: number;
  activityMs: number;
  workflowTasks: number;
}

const eventName = (e: HistoryEvent): string =>
  (temporalProto.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType)).replace(/^EVENT_TYPE_/, '');

/** The events of the middle turn, each with its offset from the turn's start, e.g. `+12.5 WORKFLOW_TASK_STARTED`. */
function middleTurn(events: HistoryEvent[], marks: [number, string][]): string[] {
  const starts = events.flatMap((e, i) =>
    e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [i] : [],
  );
  const k = Math.floor((starts.length - 1) / 2);
  const t0 = ms(events[starts[k]]);
  const t1 = ms(events[starts[k + 1]]);
  const rows: [number, string][] = events.slice(starts[k], starts[k + 1] + 1).map((e) => {
    const name =
      e.activityTaskScheduledEventAttributes?.activityType?.name ?? e.markerRecordedEventAttributes?.markerName ?? '';
    return [ms(e), `${eventName(e)}${name ? ` ${name}` : ''}`];
  });
  rows.push(...marks.filter(([t]) => t >= t0 - 5 && t <= t1 + 1));
  return rows.sort((a, b) => a[0] - b[0]).map(([t, n]) => `+${round(t - t0)} ${n}`);
}

function splitTurns(events: HistoryEvent[]): TurnSplit[] {
  const starts = events.flatMap((e, i) =>
    e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [i] : [],
  );
  const byId = new Map(events.map((e) => [String(e.eventId), e]));
  return starts.slice(0, -1).map((start, k) => {
    const slice = events.slice(start, starts[k + 1] + 1);
    const split: TurnSplit = {
      totalMs: ms(events[starts[k + 1]]) - ms(events[start]),
      workflowTaskWaitMs: 0,
      workflowTaskMs: 0,
      activityWaitMs: 0,
      activityMs: 0,
      workflowTasks: 0,
    };
    for (const e of slice) {
      const started = e.workflowTaskStartedEventAttributes;
      if (started) {
        split.workflowTaskWaitMs += ms(e) - ms(byId.get(String(started.scheduledEventId)));
        split.workflowTasks += 1;
      }
      const done = e.workflowTaskCompletedEventAttributes;
      if (done) split.workflowTaskMs += ms(e) - ms(byId.get(String(done.startedEventId)));
      const act = e.activityTaskStartedEventAttributes;
      if (act) split.activityWaitMs += ms(e) - ms(byId.get(String(act.scheduledEventId)));
      const actDone = e.activityTaskCompletedEventAttributes;
      if (actDone) split.activityMs += ms(e) - ms(byId.get(String(actDone.startedEventId)));
    }
    return split;
  });
}

/**
 * An activity interceptor marking each call's start and end on the wall clock (the clock history
 * uses, on this machine), so the middle turn can be laid out with the worker's work between the events.
 */
function activityTimer() {
  const marks: [number, string][] = [];
  const durations: Record<string, number[]> = {};
  const now = () => performance.timeOrigin + performance.now();
  const interceptor: ActivityInterceptorsFactory = (ctx) => ({
    inbound: {
      async execute(input, next) {
        const name = ctx.info.activityType;
        const started = now();
        marks.push([started, `worker ${name} starts`]);
        try {
          return await next(input);
        } finally {
          marks.push([now(), `worker ${name} ends`]);
          (durations[name] ??= []).push(now() - started);
        }
      },
    },
  });
  const medians = () => Object.fromEntries(Object.entries(durations).map(([k, v]) => [k, round(median(v))]));
  return { interceptor, marks, medians };
}

const steady = (xs: number[]): number[] => xs.slice(STEADY_FROM);

async function inProcessLoop(baseURL: string, registry: ToolRegistry, turns: number): Promise<number[]> {
  const openai = new OpenAI({ baseURL, apiKey: 'bench' });
  const tools = registry.localEntries().map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown> },
  }));
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Look up everything.' }];
  const perTurn: number[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const started = performance.now();
    const completion = await openai.chat.completions.create({ model: MODEL, messages, tools });
    const message = completion.choices[0].message;
    messages.push(message);
    for (const call of message.tool_calls ?? []) {
      if (call.type !== 'function') continue;
      const out = await registry.execute({
        runId: 'in-process',
        toolCallId: call.id,
        name: call.function.name,
        args: JSON.parse(call.function.arguments) as Record<string, unknown>,
        selection: {},
      });
      messages.push({ role: 'tool', tool_call_id: call.id, content: out.content });
    }
    perTurn.push(performance.now() - started);
    if (!message.tool_calls?.length) break;
  }
  return perTurn;
}

async function main(): Promise<boolean> {
  const server = await startBenchServer(args);
  const fake = await startFakeProvider();
  let turn = 0;
  fake.respond(() => {
    turn += 1;
    return turn > TURNS
      ? reply.text(`Done after ${turn - 1} lookups.`)
      : reply.toolCalls([{ name: 'lookup', arguments: { n: turn } }], { text: 'Looking it up.' });
  });
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-turns-'));
  const registry = new ToolRegistry();
  registry.register(quickLookupTool(TOOL_RESULT));
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    // The baseline first, on a warm fake: a few turns to warm the SDK, then the measured loop.
    await inProcessLoop(fake.openaiBaseUrl(), registry, 3);
    turn = 0;
    const inProcess = await inProcessLoop(fake.openaiBaseUrl(), registry, TURNS + 1);
    turn = 0;

    const parts = await agentWorker(fake, registry, storeDir);
    const timed = activityTimer();
    const client = new Client({ connection });
    const taskQueue = 'bench-turn-overhead';
    const worker = await Worker.create({
      connection,
      taskQueue,
      interceptors: { activity: [timed.interceptor] },
      plugins: [parts.plugin()],
    });
    const history = await worker.runUntil(async () => {
      const agents = new AgentClient(client, taskQueue);
      const id = await agents.start({
        task: 'Look up everything.',
        model: `openai/${MODEL}`,
        limits: { maxTurns: TURNS + 2 },
      });
      const res = await agents.result(id);
      if (res.stopReason !== 'completed') throw new Error(`the agent run ended ${res.stopReason}`);
      return client.workflow.getHandle(id).fetchHistory();
    });
    const turns = splitTurns(history.events ?? []);
    const agentMs = turns.map((t) => t.totalMs);
    const baseMs = inProcess.slice(0, turns.length);
    const added = (from: number, to: number) => median(agentMs.slice(from, to)) - median(baseMs.slice(from, to));
    const addedSteady = median(steady(agentMs)) - median(steady(baseMs));
    const quarter = Math.max(1, Math.floor((turns.length - STEADY_FROM) / 4));
    const early = added(STEADY_FROM, STEADY_FROM + quarter);
    const late = added(turns.length - quarter, turns.length);
    const part = (key: keyof TurnSplit) => round(median(steady(turns.map((t) => t[key]))));
    const figures = {
      addedPerTurnMs: figure(
        addedSteady,
        'ms',
        `time added per turn over the in-process loop, turns ${STEADY_FROM}–${turns.length} (median)`,
        {
          target: '<= 15',
        },
      ),
      agentTurnMs: figure(median(steady(agentMs)), 'ms', 'agent turn (median, steady state)', {
        baseline: median(steady(baseMs)),
      }),
      addedEarlyMs: figure(early, 'ms', `added per turn, turns ${STEADY_FROM}–${STEADY_FROM + quarter}`),
      addedLateMs: figure(late, 'ms', `added per turn, turns ${turns.length - quarter}–${turns.length}`),
      driftMs: figure(Math.abs(late - early), 'ms', 'added per turn, late vs early quarter, absolute difference', {
        target: '<= 10',
      }),
    };
    writeBenchResult(args.untuned ? 'turn-overhead-untuned' : 'turn-overhead', figures, {
      args,
      description: `${turns.length} tool turns (1 KiB results, quick tool) on a dev server vs the same loop in-process with the OpenAI SDK`,
      details: {
        medianPerTurnMs: {
          workflowTaskWait: part('workflowTaskWaitMs'),
          workflowTask: part('workflowTaskMs'),
          activityWait: part('activityWaitMs'),
          activity: part('activityMs'),
          workflowTasks: part('workflowTasks'),
        },
        middleTurn: middleTurn(history.events ?? [], timed.marks),
        activityMs: timed.medians(),
        agentTurnMsByDecile: deciles(agentMs),
        inProcessTurnMsByDecile: deciles(baseMs),
      },
    });
    return figures.addedPerTurnMs.met === true && figures.driftMs.met === true;
  } finally {
    await connection.close();
    await registry.close();
    await fake.close();
    await server.stop();
    fs.rmSync(storeDir, { recursive: true, force: true });
  }
}

/** Median turn time of each tenth of the run. */
function deciles(xs: number[]): number[] {
  const size = Math.max(1, Math.ceil(xs.length / 10));
  return Array.from({ length: Math.ceil(xs.length / size) }, (_, i) =>
    round(median(xs.slice(i * size, (i + 1) * size))),
  );
}

runBench(main);
