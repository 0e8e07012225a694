/**
 * The chaos suite: 20 runs of a multi-turn tool loop (ReAct and pev, Anthropic and OpenAI
 * formats, with and without token streaming, some asking for approvals, some continuing as new,
 * some delegating each step to a sub-agent's child run) on a real Temporal server, with their worker process SIGKILLed at each of the kill points and
 * started again. Seeded: `CHAOS_SEED=<n>` repeats a plan (which runs, their groups, which kill
 * points in which order, the delays inside each point); timing decides the rest.
 *
 * Recovery is measured from each SIGKILL until every affected run made progress again (a model
 * request or tool call reached the fake provider or the effects service, or the run ended); see
 * `test/kit/chaos/driver.ts` for which runs count as affected.
 */
import { testConnection, workflowBundle } from '../kit/temporal';
import { failedActivities, judge, runChaos, type ChaosReport } from '../kit/chaos/driver';
import { chaosPlan, chaosSeed, expectedFinalText, KILL_POINTS } from '../kit/chaos/plan';

const RUNS = 20;
const KILLS = KILL_POINTS.length;
const RECOVERY_LIMIT_MS = 60_000;

describe('chaos: the worker SIGKILLed at random points under 20 concurrent runs', () => {
  let report: ChaosReport;
  const seed = chaosSeed();

  beforeAll(async () => {
    const { client, address, namespace } = await testConnection();
    const plan = chaosPlan(seed, RUNS, KILLS);
    const lines: string[] = [`chaos seed ${seed} (repeat with CHAOS_SEED=${seed})`];
    report = await runChaos({
      client,
      address,
      namespace,
      bundlePath: workflowBundle().codePath,
      plan,
      log: (line) => lines.push(line),
    });
    lines.push(`chaos took ${(report.elapsedMs / 1000).toFixed(0)} s for ${KILLS} kills among ${RUNS} agent runs`);
    console.log(lines.join('\n'));
  }, 360_000);

  it('completes every run with its final text', async () => {
    const { client } = await testConnection();
    const ended = await Promise.all(
      report.runs.map(async (run) => ({
        tag: run.spec.tag,
        status: run.result?.status ?? run.error,
        finalText: run.result?.finalText,
        error: run.result?.error && `${run.result.error.message}; ${await failedActivities(client, run.id)}`,
      })),
    );
    expect(ended).toEqual(
      report.runs.map((run) => ({
        tag: run.spec.tag,
        status: 'completed',
        finalText: expectedFinalText(run.spec),
        error: undefined,
      })),
    );
  });

  it('sends the provider no request the real API would reject', () => {
    const { refused } = judge(report);
    expect(refused.map((r) => `#${r.seq} ${r.status} ${r.error}`)).toEqual([]);
    expect(report.requests.length).toBeGreaterThan(RUNS * 2);
  });

  it('makes each side effect once: one idempotency key per operation, its effect applied once', () => {
    const expectedOps = report.runs.flatMap((run) =>
      Array.from(
        { length: run.spec.steps },
        (_, i) => `${run.spec.tag}/${run.spec.kind === 'react' ? 'step' : 'task'}-${i + 1}`,
      ),
    );
    expect([...report.effectsPerOp.keys()].sort()).toEqual(expectedOps.sort());
    expect(judge(report).opsNotOnce).toEqual([]);
    // The tool-call kill made a retry: one key was called more than once and applied once.
    const calls = new Map<string, number>();
    for (const i of report.invocations) calls.set(i.key, (calls.get(i.key) ?? 0) + 1);
    expect(Math.max(...calls.values())).toBeGreaterThan(1);
  });

  it('continues the runs that asked for it as new, across the kills', async () => {
    const { client } = await testConnection();
    const continuing = report.runs.filter(
      (run) => run.spec.continueAsNewAfterTurns !== undefined && run.spec.kind === 'react',
    );
    expect(continuing.length).toBeGreaterThan(0);
    for (const run of continuing) {
      expect(run.result?.turns).toBe(run.spec.steps + 1);
      // The last run of the chain was started by continue-as-new.
      const history = await client.workflow.getHandle(run.id).fetchHistory();
      expect(history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
    }
  });

  it('finishes a run whose child was working when its worker was killed: each step delegated once, each child once', () => {
    expect(report.kills.map((k) => k.point)).toContain('child_run');
    const delegating = report.runs.filter((run) => run.spec.delegate);
    expect(delegating.length).toBeGreaterThan(0);
    for (const run of delegating)
      expect(run.result?.children?.map((c) => [c.agent, c.status])).toEqual(
        Array.from({ length: run.spec.steps }, () => ['stepper', 'completed']),
      );
  });

  it(`recovers from every kill in under ${RECOVERY_LIMIT_MS / 1000} s (seed ${seed})`, () => {
    const slow = report.kills.filter((k) => k.recoveryMs === undefined || k.recoveryMs >= RECOVERY_LIMIT_MS);
    expect(slow).toEqual([]);
    for (const kill of report.kills) expect(kill.affected.length).toBeGreaterThan(0);
  });
});
