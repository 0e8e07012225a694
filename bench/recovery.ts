// Recovery: the chaos suite at scale. N runs (default 100) of the multi-turn tool loop (ReAct and
// pev) on a real dev server, their worker process SIGKILLed K times (default 20) at seeded kill
// points (inside model calls, streaming and not; inside tool calls; during a workflow task; while
// waiting for approval; around continue-as-new) and started again. Records recovery p50/p95 (from
// the SIGKILL until every affected run made progress again, see test/kit/chaos/driver.ts), the
// worker restart time, and whether every run completed with its final text, no request was
// refused and every side effect was made once; exits 1 when one of those fails.
// Run: node -r ./scripts/register-ts.js bench/recovery.ts [runs] [kills] [--smoke]   (CHAOS_SEED=<n> repeats a plan)
import { Client, Connection } from '@temporalio/client';
import { judge, runChaos, type ChaosReport } from '../test/kit/chaos/driver';
import { chaosPlan, chaosSeed } from '../test/kit/chaos/plan';
import { benchArgs, benchBundle, figure, percentile, runBench, startBenchServer, writeBenchResult } from './kit';

const args = benchArgs();
const [RUNS, KILLS] = args.smoke ? [2, 1] : [args.sizes[0] ?? 100, args.sizes[1] ?? 20];
const RECOVERY_LIMIT_MS = 60_000;

function figures(report: ChaosReport) {
  const recovered = report.kills.flatMap((k) => (k.recoveryMs === undefined ? [] : [k.recoveryMs]));
  const restarts = report.kills.map((k) => k.restartMs);
  const { wrongRuns, refused, opsNotOnce } = judge(report);
  const byPoint: Record<string, number[]> = {};
  for (const k of report.kills) (byPoint[k.point] ??= []).push(k.recoveryMs ?? NaN);
  return {
    seed: report.plan.seed,
    runs: report.runs.length,
    kills: report.kills.length,
    elapsedSeconds: Math.round(report.elapsedMs / 1000),
    recoveryMs: {
      p50: percentile(recovered, 50),
      p95: percentile(recovered, 95),
      max: Math.max(...recovered),
      notRecovered: report.kills.length - recovered.length,
    },
    recoveryMsByPoint: byPoint,
    workerRestartMs: { p50: percentile(restarts, 50), p95: percentile(restarts, 95) },
    completedWithFinalText: report.runs.length - wrongRuns.length,
    refusedRequests: refused.length,
    modelRequests: report.requests.length,
    toolCalls: report.invocations.length,
    operations: report.effectsPerOp.size,
    operationsNotAppliedOnce: opsNotOnce.length,
  };
}

async function main(): Promise<boolean> {
  // Checks the sizes before anything starts.
  const plan = chaosPlan(chaosSeed(), RUNS, KILLS);
  const server = await startBenchServer(args);
  let connection: Connection | undefined;
  try {
    const bundlePath = await benchBundle();
    connection = await Connection.connect({ address: server.address });
    console.log(`chaos seed ${plan.seed} (repeat with CHAOS_SEED=${plan.seed})`);
    const report = await runChaos({
      client: new Client({ connection }),
      address: server.address,
      namespace: 'default',
      bundlePath,
      plan,
      log: (line) => console.log(line),
    });
    const out = figures(report);
    const limit = `< ${RECOVERY_LIMIT_MS}`;
    writeBenchResult(
      'recovery',
      {
        recoveryP50: figure(out.recoveryMs.p50, 'ms', 'recovery from a worker SIGKILL, p50', { target: limit }),
        recoveryP95: figure(out.recoveryMs.p95, 'ms', 'recovery from a worker SIGKILL, p95', { target: limit }),
        restartP50: figure(out.workerRestartMs.p50, 'ms', 'new worker polling after a kill, p50'),
        completed: figure(out.completedWithFinalText / out.runs, 'share', 'runs completed with their final text', {
          target: '>= 1',
        }),
        refused: figure(out.refusedRequests, 'requests', 'model requests the provider refused', { target: '== 0' }),
        notOnce: figure(out.operationsNotAppliedOnce, 'operations', 'side effects not applied exactly once', {
          target: '== 0',
        }),
      },
      {
        description: `${out.runs} runs (ReAct and pev), ${out.kills} worker SIGKILLs, seed ${out.seed}`,
        details: out,
        args,
      },
    );
    return (
      out.completedWithFinalText === out.runs &&
      out.refusedRequests === 0 &&
      out.operationsNotAppliedOnce === 0 &&
      out.recoveryMs.notRecovered === 0 &&
      out.recoveryMs.max < RECOVERY_LIMIT_MS
    );
  } finally {
    await connection?.close();
    await server.stop();
  }
}

runBench(main);
