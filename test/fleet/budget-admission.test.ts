/**
 * A tenant budget under concurrency, on real worker processes: twenty runs of one tenant start
 * together against a budget worth five. Runs are admitted at their expected cost and the rest wait
 * in the ledger's line, so the budget buys whole answers instead of a first call of every run; a
 * worker SIGKILLed while the provider's answer is on its way (billed, never received) leaves an
 * attempt the ledger charges, so what the provider billed is what the ledger counts. The killed
 * worker holds that call alone (its run's activities go to a queue of their own): an attempt lost
 * before it reached the provider is charged at its estimate too, which the provider never bills.
 */
import crypto from 'node:crypto';
import { AgentClient } from '../../src/client';
import type { AgentResult } from '../../src/contracts/agent-run';
import type { BudgetAmount, LedgerView } from '../../src/contracts/tenant-budget';
import { reply, type RecordedRequest } from '../../src/testing/fake-provider';
import { PRIMARY, waitFor } from '../agent/agent-kit';
import { testConnection } from '../kit/temporal';
import { useWorkerHosts, type WorkerProcess } from '../kit/worker-process';

const newTenant = (name: string): string => `${name}-${crypto.randomUUID().slice(0, 8)}`;

/** What every answer is billed for: $0.0069 a call on the primary model, $0.0207 a run of three calls. */
const USAGE = { input: 300, output: 400 };
const PRICES = { input: 3, output: 15, cacheWrite: 3.75 };
const costOf = (u: { input?: number; output?: number; cacheWrite?: number }): number =>
  ((u.input ?? 0) * PRICES.input + (u.output ?? 0) * PRICES.output + (u.cacheWrite ?? 0) * PRICES.cacheWrite) / 1e6;
const RUNS = 20;
const MAX_TOKENS = 500;
/** Five runs' worth. */
const CAP = 5 * 3 * costOf(USAGE);

const toolResults = (request: RecordedRequest): number =>
  JSON.stringify(request.body.messages ?? []).split('"tool_result"').length - 1;
const jobOf = (request: RecordedRequest): number => Number(/Job (\d+)\./.exec(JSON.stringify(request.body))?.[1]);
const LIST = [{ name: 'fs_list', arguments: { path: '.' } }];

/**
 * The answer to a call whose worker dies receiving it: it costs exactly `reserved` (the call's
 * reservation), streams a second an event, and the worker is SIGKILLed (and replaced) half a second
 * in, after the provider billed it and before the worker has it whole.
 */
function lostAnswer(reserved: BudgetAmount, replace: () => Promise<void>) {
  const usage = { input: 0, cacheWrite: reserved.tokens - MAX_TOKENS, output: MAX_TOKENS };
  const killed = (async () => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await replace();
  })();
  return { step: reply.toolCalls(LIST, { usage, eventDelayMs: 1_000 }), usd: costOf(usage), killed };
}

describe('a tenant budget under concurrency', () => {
  const hosts = useWorkerHosts('admission');

  /** A worker process on `taskQueue`, and how to SIGKILL it and start another. */
  async function replaceable(taskQueue: string): Promise<() => Promise<void>> {
    let worker: WorkerProcess = await hosts.start(taskQueue);
    return async () => {
      await worker.kill();
      worker = await hosts.start(taskQueue);
    };
  }

  it('20 runs against a budget worth 5: at least 4 answer, the rest never spend, and the provider bills what the ledger counts across a SIGKILL', async () => {
    hosts.fake.reset();
    const taskQueue = `admission-${crypto.randomUUID()}`;
    await hosts.start(taskQueue);
    // The first run's model calls go to a worker of their own: the one killed, with that call alone on it.
    const victimQueue = `${taskQueue}-victim`;
    const replace = await replaceable(victimQueue);
    const { client } = await testConnection();
    const agents = new AgentClient(client, taskQueue);
    const tenant = newTenant('crowd');
    await agents.setTenantBudget(tenant, { maxCostUsd: CAP, period: 'total' });

    const ids: string[] = [];
    /** What each answered request was billed, by its sequence number. */
    const billed = new Map<number, number>();
    let victim: { job: number; killed?: Promise<void> } | undefined;
    const ledger = (): Promise<LedgerView> => agents.tenantBudget(tenant);
    hosts.fake.respond(async (request) => {
      const job = jobOf(request);
      const done = toolResults(request);
      if (done === 1 && job === 0 && victim === undefined) {
        // The worst moment: the provider answers (and bills) the first run's second call, and its
        // worker dies while the answer is on its way. The answer costs exactly what the call
        // reserved, so the ledger can only agree with the provider by charging it.
        victim = { job };
        const open = (await ledger()).calls?.find((c) => c.key === `${ids[job]}#2`);
        if (!open) throw new Error(`no open reservation for job ${job}'s second call`);
        const lost = lostAnswer(open, replace);
        billed.set(request.seq, lost.usd);
        victim.killed = lost.killed;
        return lost.step;
      }
      billed.set(request.seq, costOf(USAGE));
      return done >= 2 ? reply.text(`Job ${job} is done.`, { usage: USAGE }) : reply.toolCalls(LIST, { usage: USAGE });
    });

    for (let job = 0; job < RUNS; job++) ids.push(`crowd-${job}-${crypto.randomUUID().slice(0, 8)}`);
    const start = (job: number) =>
      agents.start({
        call: { maxTokens: MAX_TOKENS },
        fleet: { tenant, ...(job === 0 ? { taskQueue: victimQueue } : {}) },
        id: ids[job],
        task: `Job ${job}. List the workspace twice, then say you are done.`,
        model: PRIMARY,
        tools: { allow: ['fs_list'] },
      });
    // The first run is admitted first; the other 19 start together while it works.
    await start(0);
    await waitFor(() => hosts.fake.requests.some((r) => jobOf(r) === 0), 'the first run at work', 60_000);
    await Promise.all(ids.slice(1).map((_, i) => start(i + 1)));
    // The ledger never counts past the cap, spent or reserved.
    let watching = true;
    let highest = 0;
    const watch = (async () => {
      while (watching) {
        // A sample the ledger's worker, busy with twenty runs starting, did not answer in time is skipped.
        const view = await ledger().catch(() => undefined);
        if (view) highest = Math.max(highest, view.spent.usd + view.reserved.usd);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    const results: AgentResult[] = await Promise.all(ids.map((id) => agents.result(id)));
    watching = false;
    await watch;
    await victim?.killed;

    const completed = results.filter((r) => r.stopReason === 'completed');
    expect(completed.length).toBeGreaterThanOrEqual(4);
    for (const r of completed) expect(r.finalText).toMatch(/^Job \d+ is done\.$/);
    const refused = results.filter((r) => r.stopReason !== 'completed');
    expect(refused.map((r) => r.stopReason)).toEqual(refused.map(() => 'budget'));
    for (const r of refused) expect(r).toMatchObject({ costUsd: 0, stopNote: expect.stringMatching(/not started/) });
    const called = new Set(hosts.fake.requests.map(jobOf));
    expect(refused.filter((r) => called.has(ids.indexOf(r.id)))).toEqual([]);

    // The kill landed while the answer was on its way: the call was made again.
    expect(victim).toBeDefined();
    const victimCalls = hosts.fake.requests.filter((r) => jobOf(r) === victim?.job && toolResults(r) === 1);
    expect(victimCalls.length).toBe(2);

    const view = await ledger();
    const providerBilled = hosts.fake.requests
      .filter((r) => r.status === 200)
      .reduce((sum, r) => sum + (billed.get(r.seq) ?? NaN), 0);
    expect(view.spent.usd).toBeCloseTo(providerBilled, 10);
    expect(results.reduce((sum, r) => sum + r.costUsd, 0)).toBeCloseTo(providerBilled, 10);
    expect(highest).toBeLessThanOrEqual(CAP + 1e-12);
    expect(view).toMatchObject({
      openReservations: 0,
      held: { runs: 0 },
      queue: { waiting: 0 },
      stops: { midTask: 0, beforeStart: refused.length },
    });
  }, 600_000);

  it('a worker SIGKILLed while an answer is on its way: the lost attempt is charged, and the provider bills what the ledger and the run count', async () => {
    hosts.fake.reset();
    const taskQueue = `lost-answer-${crypto.randomUUID()}`;
    const replace = await replaceable(taskQueue);
    const { client } = await testConnection();
    const agents = new AgentClient(client, taskQueue);
    const tenant = newTenant('lost');
    await agents.setTenantBudget(tenant, { maxCostUsd: 1, period: 'total' });
    const billed = new Map<number, number>();
    let killed: Promise<void> | undefined;
    hosts.fake.respond(async (request) => {
      const done = toolResults(request);
      if (done === 1 && killed === undefined) {
        // The one open reservation is this call's: its answer costs exactly that, and never arrives.
        const lost = lostAnswer((await agents.tenantBudget(tenant)).reserved, replace);
        billed.set(request.seq, lost.usd);
        killed = lost.killed;
        return lost.step;
      }
      billed.set(request.seq, costOf(USAGE));
      return done >= 2 ? reply.text('Done.', { usage: USAGE }) : reply.toolCalls(LIST, { usage: USAGE });
    });
    const result = await agents.run({
      call: { maxTokens: MAX_TOKENS },
      fleet: { tenant: tenant },
      task: 'List the workspace twice, then say you are done.',
      model: PRIMARY,
      tools: { allow: ['fs_list'] },
    });
    await killed;
    expect(result).toMatchObject({ stopReason: 'completed', finalText: 'Done.' });
    expect(hosts.fake.requests.filter((r) => r.status === 200)).toHaveLength(4);
    const providerBilled = hosts.fake.requests.reduce((sum, r) => sum + (billed.get(r.seq) ?? 0), 0);
    const view = await agents.tenantBudget(tenant);
    expect(view.spent.usd).toBeCloseTo(providerBilled, 10);
    expect(result.costUsd).toBeCloseTo(providerBilled, 10);
    expect(view).toMatchObject({ openReservations: 0, reserved: { usd: 0 } });
  }, 300_000);
});
