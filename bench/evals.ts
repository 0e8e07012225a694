// Evals over recorded runs: N recorded runs of 5 turns (default 200), each calling a tool with side
// effects (`file_ticket`, 1 s, as a call to a ticketing system would take) in its first 4 turns and
// answering in the 5th, are replayed as eval cases (`eval replay`'s library: recordedCase, runEval)
// with their tool results served from the recording. Figures: the replay's wall time against the
// same N runs made fresh with their tools, both at the eval's default of cases at a time (target
// <= 0.5 of it), side effects executed by the replay (target 0), and the eval's throughput under a
// provider limit of 600 requests a minute in the worker's config, every case at once: cases a
// minute against the 120 the limit allows at 5 calls a case (target within 10 %). The dev server
// and one worker process (this one) carry it.
// Run: node -r ./scripts/register-ts.js bench/evals.ts [runs] [--smoke]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient, type AgentResult } from '../src/client';
import { readRunMessages } from '../src/client/run-messages';
import { DEFAULT_PARALLEL, recordedCase, runEval, type EvalReport } from '../src/evals';
import { FileContentStore } from '../src/store';
import { fakeProviderEnv, reply, startFakeProvider, type RecordedRequest } from '../src/testing/fake-provider';
import { ToolRegistry, defineTool } from '../src/tools';
import { DurableAgentsPlugin } from '../src/worker/plugin';
import { workerConfig } from '../src/worker/worker-config';
import { benchArgs, benchBundle, figure, round, runBench, startBenchServer, writeBenchResult } from './kit';

const args = benchArgs();
const RUNS = args.smoke ? 10 : (args.sizes[0] ?? 200);
const TOOL_TURNS = 4;
const TOOL_MS = 1_000;
const LIMIT_RPM = 600;
const CASES_PER_MINUTE = LIMIT_RPM / (TOOL_TURNS + 1);
const MODEL = 'anthropic/claude-sonnet-4-6';

const answers = (request: RecordedRequest): number =>
  (request.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;

async function main(): Promise<boolean> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-evals-'));
  const server = await startBenchServer(args);
  const fake = await startFakeProvider();
  let executed = 0;
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'file_ticket',
      description: 'Files a ticket.',
      parameters: z.object({ job: z.number(), step: z.number() }),
      sideEffects: true,
      execute: async ({ job, step }) => {
        executed++;
        await new Promise((r) => setTimeout(r, TOOL_MS));
        return `ticket ${job}-${step} filed`;
      },
    }),
  );
  fake.respond((request) => {
    const n = answers(request);
    const job = Number(/Job (\d+)\./.exec(JSON.stringify(request.body.messages))?.[1]);
    return n < TOOL_TURNS
      ? reply.toolCalls([{ name: 'file_ticket', arguments: { job, step: n } }])
      : reply.text(`Job ${job}: ${TOOL_TURNS} tickets filed.`);
  });
  const store = new FileContentStore(path.join(dir, 'store'));
  const bundle = { workflowBundle: { codePath: await benchBundle() } };
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection });
  /** A worker of this process on `taskQueue`, with the provider limit when `limited`. */
  const worker = (taskQueue: string, limited: boolean) => {
    const inline = limited ? { providers: { anthropic: { limits: { requestsPerMinute: LIMIT_RPM } } } } : undefined;
    const config = workerConfig({ env: fakeProviderEnv(fake, 'bench'), file: null, ...(inline ? { inline } : {}) });
    return Worker.create({
      connection,
      namespace: 'default',
      taskQueue,
      maxCachedWorkflows: 2 * RUNS,
      plugins: [new DurableAgentsPlugin({ config, store, tools: registry, workflows: bundle })],
    });
  };
  const messages = (id: string) => readRunMessages(store, id);
  try {
    const free = await worker('bench-evals', false);
    const agents = new AgentClient(client, 'bench-evals');
    const { fresh, ids, replay } = await free.runUntil(async () => {
      let started = Date.now();
      // The fresh runs, which the eval then replays, at most as many at a time as the eval runs cases.
      const ids: string[] = [];
      const results: AgentResult[] = [];
      let next = 0;
      const lane = async () => {
        for (let i = next++; i < RUNS; i = next++) {
          ids[i] = await agents.start({
            task: `Job ${i}. File the tickets.`,
            model: MODEL,
            tools: { allow: ['file_ticket'] },
          });
          results[i] = await agents.result(ids[i]);
        }
      };
      await Promise.all(Array.from({ length: DEFAULT_PARALLEL }, lane));
      const fresh = Date.now() - started;
      const incomplete = results.filter((r) => r.stopReason !== 'completed' || r.turns !== TOOL_TURNS + 1).length;
      if (incomplete > 0) throw new Error(`${incomplete} of ${RUNS} recorded runs did not complete in 5 turns`);
      executed = 0;
      const cases = await Promise.all(ids.map((id) => recordedCase(agents, client, id, messages, { tolerance: 0 })));
      started = Date.now();
      const report = await runEval(agents, cases, { parallel: DEFAULT_PARALLEL, fleet: { tenant: 'evals' }, messages });
      return { fresh, ids, replay: { report, wallMs: Date.now() - started, executed } };
    });
    const limited = await worker('bench-evals-limited', true);
    const limitedAgents = new AgentClient(client, 'bench-evals-limited');
    const throughput = await limited.runUntil(async () => {
      // The same cases, their runs on the limited worker's queue.
      const cases = await Promise.all(ids.map((id) => recordedCase(agents, client, id, messages, { tolerance: 0 })));
      const started = Date.now();
      const report: EvalReport = await runEval(limitedAgents, cases, {
        parallel: RUNS,
        fleet: { tenant: 'evals' },
        messages,
      });
      return { report, wallMs: Date.now() - started };
    });
    const perMinute = RUNS / (throughput.wallMs / 60_000);
    const ratio = replay.wallMs / fresh;
    const passed = [replay.report, throughput.report].every((r) => r.summary.passed === RUNS);
    const figures = {
      replayVsFresh: figure(
        ratio,
        'share',
        `${RUNS} runs, ${DEFAULT_PARALLEL} at a time: the replay's wall time over the fresh runs'`,
        {
          target: '<= 0.5',
        },
      ),
      sideEffects: figure(replay.executed, 'calls', `${RUNS} runs: side effects executed by the replay`, {
        target: '== 0',
      }),
      casesPerMinuteOff: figure(
        Math.abs(perMinute / CASES_PER_MINUTE - 1),
        'share',
        `${RUNS} cases under ${LIMIT_RPM} requests a minute: cases a minute off the ${CASES_PER_MINUTE} the limit allows`,
        { target: '<= 0.1' },
      ),
    };
    writeBenchResult('evals', figures, {
      description: `${RUNS} recorded ${TOOL_TURNS + 1}-turn runs replayed with served tools against the same made fresh`,
      details: {
        runs: RUNS,
        toolMs: TOOL_MS,
        parallel: DEFAULT_PARALLEL,
        freshSeconds: round(fresh / 1000, 2),
        replaySeconds: round(replay.wallMs / 1000, 2),
        limitedSeconds: round(throughput.wallMs / 1000, 2),
        casesPerMinute: round(perMinute, 1),
        passed: { replay: replay.report.summary.passed, limited: throughput.report.summary.passed },
        drift: { replay: replay.report.summary.drift, limited: throughput.report.summary.drift },
      },
      args,
    });
    return passed && Object.values(figures).every((f) => f.met);
  } finally {
    await connection.close();
    await fake.close();
    await server.stop();
  }
}

runBench(main);
