/**
 * Tenant budgets across runs on the real dev server: every model call of a tenant's runs reserves
 * its estimate against the tenant's ledger and settles what it cost; the runs that would cross the
 * budget stop with stop reason `budget` or move to the cheaper model their budget rules name.
 */
import crypto from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { AgentClient } from '../../src/client';
import type { AgentResult } from '../../src/contracts/agent-run';
import { ledgerWorkflowId } from '../../src/contracts/tenant-budget';
import { reply, type RecordedRequest } from '../../src/testing/fake-provider';
import { runCli } from '../kit/cli';
import { saveHistoryIfRecording, testConnection, withWorker } from '../kit/temporal';
import { CHEAP, PRIMARY, holdReply, useAgentFixture, waitFor, waitForState } from '../agent/agent-kit';

/** A tenant name no other test (or earlier jest run on the same server) uses. */
const newTenant = (name: string): string => `${name}-${crypto.randomUUID().slice(0, 8)}`;

/** Output tokens each answer is billed for: about $0.0026 a call on the primary model with 100 input tokens. */
const USAGE = { input: 100, output: 150 };

/** Tool results in an Anthropic- or OpenAI-format request. */
const toolResults = (request: RecordedRequest): number =>
  JSON.stringify(request.body.messages ?? []).split(/"tool_result"|"role":"tool"/).length - 1;

/** Two tool calls, then an answer: three model calls a run. */
const threeCalls = (request: RecordedRequest) =>
  toolResults(request) >= 2
    ? reply.text('3.', { usage: USAGE })
    : reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }], { usage: USAGE });

/** Activity types and marker summaries of the run's history: what its budget cost it. */
async function budgetSteps(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((e) => {
    const summary = e.userMetadata?.summary && defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary);
    return typeof summary === 'string' && summary.startsWith('budget: ') ? [summary] : [];
  });
}

const ledgerOf = (agents: AgentClient, tenant: string) => agents.tenantBudget(tenant);

/** The CLI's environment for a worker's task queue. */
async function cliEnv(taskQueue: string): Promise<NodeJS.ProcessEnv> {
  const { address, namespace } = await testConnection();
  return { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_TASK_QUEUE: taskQueue };
}

describe('tenant budgets across runs', () => {
  const fx = useAgentFixture();

  it('a budget of $0.02 refuses the runs whose expected cost no longer fits before they spend; spend stays under it', async () => {
    const tenant = newTenant('tight');
    fx.fake.respond(threeCalls);
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      await agents.setTenantBudget(tenant, { maxCostUsd: 0.02, period: 'day' });
      const ids = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          agents.start({
            call: { maxTokens: 200 },
            fleet: { tenant: tenant },
            task: `Add 1 and 2 twice (job ${i}).`,
            model: PRIMARY,
            tools: { allow: ['add'] },
          }),
        ),
      );
      const results: AgentResult[] = await Promise.all(ids.map((id) => agents.result(id)));
      const stopped = results.filter((r) => r.stopReason === 'budget');
      expect(stopped.length).toBeGreaterThan(0);
      expect(results.every((r) => r.stopReason === 'budget' || r.stopReason === 'completed')).toBe(true);
      expect(results.filter((r) => r.stopReason === 'completed').every((r) => r.finalText === '3.')).toBe(true);
      // A run the budget cannot carry through is refused before it spends, and its result says why.
      for (const r of stopped)
        expect(r).toMatchObject({ costUsd: 0, stopNote: expect.stringMatching(/budget is spent: .*not started/) });

      // What each call reserved, as its timeline says: `budget: reserve $0.0041 for …`.
      const reserved = (await Promise.all(ids.map((id) => budgetSteps(client.workflow.getHandle(id)))))
        .flat()
        .flatMap((step) => /^budget: reserve \$([\d.]+)/.exec(step)?.slice(1) ?? [])
        .map(Number);
      expect(reserved.length).toBeGreaterThan(0);
      const spent = results.reduce((sum, r) => sum + r.costUsd, 0);
      expect(spent).toBeGreaterThan(0);
      expect(spent).toBeLessThanOrEqual(0.02);
      const ledger = await ledgerOf(agents, tenant);
      expect(ledger.spent.usd).toBeCloseTo(spent, 10);
      expect(ledger).toMatchObject({
        reserved: { usd: 0, tokens: 0 },
        openReservations: 0,
        held: { usd: 0, runs: 0 },
        queue: { waiting: 0 },
        stops: { midTask: 0, beforeStart: stopped.length },
      });
      const show = await runCli(['budget', 'show', tenant], { env: await cliEnv(taskQueue) });
      expect(show.stdout).toMatch(
        new RegExp(`\\nstopped by the budget: 0 runs mid-task, ${stopped.length} before starting; last \\S+: tenant `),
      );

      const refused = await agents.state(stopped[0].id);
      expect(refused.tenantBudget).toMatchObject({ tenant, refused: expect.stringMatching(/budget is spent/) });
      // Its details say why it ended: the refusal, named by the feature that refused.
      const details = await client.workflow.getHandle(stopped[0].id).query('__temporal_workflow_metadata');
      expect(JSON.stringify(details)).toMatch(/ended: \w+ \(budget\): tenant budget: [^"]*budget is spent/);
      expect(fx.fake.requests.length).toBe(3 * (results.length - stopped.length));
      expect(refused.events.map((e) => e.type)).toContain('tenant_budget');
      // One more run, refused as well; named after its history, which the replay gate replays under that id.
      const late = await agents.start({
        id: 'agent-tenant-budget-refused',
        call: { maxTokens: 200 },
        fleet: { tenant: tenant },
        task: 'Add 1 and 2 twice (one job too many).',
        model: PRIMARY,
        tools: { allow: ['add'] },
      });
      expect(await agents.result(late)).toMatchObject({ stopReason: 'budget', costUsd: 0 });
      await saveHistoryIfRecording(client.workflow.getHandle(late), 'agent-tenant-budget-refused');
      await saveHistoryIfRecording(client.workflow.getHandle(ledgerWorkflowId(tenant)), 'tenant-ledger-hold-savings');
    });
  });

  it("runs without maxTokens are estimated at a typical answer, not the model's whole output: some answer, the rest are refused saying why", async () => {
    const tenant = newTenant('nomax');
    fx.fake.respond((request) =>
      toolResults(request) >= 2
        ? reply.text('3.', { usage: { input: 300, output: 400 } })
        : reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }], { usage: { input: 300, output: 400 } }),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      // About 4.8 runs of three calls at $0.0069.
      await agents.setTenantBudget(tenant, { maxCostUsd: 0.1, period: 'total' });
      const ids = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          agents.start({
            fleet: { tenant: tenant },
            task: `Add 1 and 2 twice (job ${i}).`,
            model: PRIMARY,
            tools: { allow: ['add'] },
          }),
        ),
      );
      const results = await Promise.all(ids.map((id) => agents.result(id)));
      const done = results.filter((r) => r.stopReason === 'completed');
      expect(done.length).toBeGreaterThanOrEqual(2);
      for (const r of results.filter((x) => x.stopReason !== 'completed'))
        expect(r).toMatchObject({ stopReason: 'budget', costUsd: 0, stopNote: expect.stringMatching(/not started/) });
      // A call reserved a typical answer's output (1,024 tokens at $15 a million), not 64,000.
      const reserved = (await budgetSteps(client.workflow.getHandle(done[0].id)))
        .flatMap((step) => /^budget: reserve \$([\d.]+)/.exec(step)?.slice(1) ?? [])
        .map(Number);
      expect(Math.max(...reserved)).toBeLessThan(0.03);
      expect((await ledgerOf(agents, tenant)).spent.usd).toBeLessThanOrEqual(0.1);
    });
  });

  it('a refused run moves to the cheaper model its budget rules name, and finishes there', async () => {
    const tenant = newTenant('cheap');
    fx.fake.respond(threeCalls);
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      // One primary call's estimate (about $0.004) fits; the next does not. The cheap model's do.
      await agents.setTenantBudget(tenant, { maxCostUsd: 0.006, period: 'total' });
      const result = await agents.run({
        call: { maxTokens: 200 },
        fleet: { tenant: tenant },
        task: 'Add 1 and 2 twice.',
        model: { primary: PRIMARY, budget: [{ afterCostUsd: 100, model: CHEAP }] },
        tools: { allow: ['add'] },
      });
      expect(result).toMatchObject({ stopReason: 'completed', model: CHEAP, finalText: '3.' });
      const { events } = await agents.state(result.id);
      expect(events.find((e) => e.type === 'provider_switch')).toMatchObject({
        fromModel: PRIMARY,
        toModel: CHEAP,
        reason: expect.stringMatching(/^tenant budget: /),
      });
      expect((await ledgerOf(agents, tenant)).spent.usd).toBeCloseTo(result.costUsd, 10);
      await saveHistoryIfRecording(client.workflow.getHandle(result.id), 'agent-tenant-budget-switch');
    });
  });

  it('runs of a tenant without a budget, and runs without a tenant, make no budget call', async () => {
    fx.fake.respond(threeCalls);
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const ids = await Promise.all([
        agents.start({ fleet: { tenant: newTenant('free') }, task: 'Add.', model: PRIMARY, tools: { allow: ['add'] } }),
        agents.start({ task: 'Add.', model: PRIMARY, tools: { allow: ['add'] } }),
      ]);
      for (const id of ids) {
        expect(await agents.result(id)).toMatchObject({ stopReason: 'completed' });
        expect(await budgetSteps(client.workflow.getHandle(id))).toEqual([]);
        expect((await agents.state(id)).tenantBudget).toBeUndefined();
      }
    });
  });

  it('a run started before its tenant had a budget is told, and reserves from its next call on', async () => {
    const tenant = newTenant('late');
    fx.fake.respond((request) =>
      toolResults(request) === 0
        ? reply.toolCalls([{ name: 'slow_step', arguments: { label: 'x' } }])
        : reply.text('Done.', { usage: USAGE }),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        call: { maxTokens: 200 },
        fleet: { tenant: tenant },
        task: 'Take a slow step.',
        model: PRIMARY,
      });
      await waitFor(() => fx.calls.includes('slow_step:x'), 'the slow step');
      const { toldRuns } = await agents.setTenantBudget(tenant, { maxCostUsd: 1, period: 'month' });
      expect(toldRuns).toBe(1);
      fx.latch.open();
      expect(await agents.result(id)).toMatchObject({ stopReason: 'completed' });
      expect(await budgetSteps(client.workflow.getHandle(id))).toEqual([
        expect.stringMatching(/^budget: reserve \$0\.00\d+ for anthropic\/claude-sonnet-4-6$/),
        expect.stringMatching(/^budget: settle \$0\.00\d+$/),
      ]);
      expect((await ledgerOf(agents, tenant)).spent.usd).toBeGreaterThan(0);
    });
  });

  it('a run waits in line while another holds the budget, says so in its state and details, and goes on after it; a stopped one leaves the line', async () => {
    const tenant = newTenant('busy');
    const release = holdReply(fx, reply.text('Held answer.', { usage: { input: 10, output: 10 } }));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      // Room for one run's expected cost ($0.004, about one call's estimate) at a time.
      await agents.setTenantBudget(tenant, { maxCostUsd: 0.006, period: 'day' });
      const options = {
        model: PRIMARY,
        fleet: { tenant, expectedCostUsd: 0.004 },
        call: { maxTokens: 200 },
        tools: { allow: ['add'] },
      };
      const first = await agents.start({ task: 'First.', ...options });
      await waitFor(() => fx.fake.requests.length === 1, 'the first call');
      // Named after its history: the replay gate replays a history under its file's name.
      const second = await agents.start({ id: 'agent-tenant-budget-wait', task: 'Second.', ...options });
      const waiting = await waitForState(agents, second, (s) => s.tenantBudget?.waiting !== undefined);
      expect(waiting.tenantBudget?.waiting).toMatch(/^1st in line for .*reserved by 1 calls in progress/);
      const details = await client.workflow.getHandle(second).query<string>('__temporal_workflow_metadata');
      expect(JSON.stringify(details)).toMatch(new RegExp(`waiting for tenant ${tenant}'s budget \\(1st in line`));
      expect(await ledgerOf(agents, tenant)).toMatchObject({ queue: { waiting: 1, first: [{ run: second }] } });
      const show = await runCli(['budget', 'show', tenant], { env: await cliEnv(taskQueue) });
      expect(show.stdout).toContain(`\nwaiting: 1 request in line; first ${second} to start, $0.0040, since `);
      // A run stopped while it waits leaves the line.
      const third = await agents.start({ task: 'Third.', ...options });
      await waitForState(agents, third, (s) => s.tenantBudget?.waiting?.startsWith('2nd in line') === true);
      await agents.stop(third);
      expect(await agents.result(third)).toMatchObject({ stopReason: 'stopped', costUsd: 0 });
      expect(await ledgerOf(agents, tenant)).toMatchObject({ queue: { waiting: 1, first: [{ run: second }] } });
      release.open();
      expect(await agents.result(first)).toMatchObject({ stopReason: 'completed' });
      expect(await agents.result(second)).toMatchObject({ stopReason: 'completed' });
      expect((await agents.state(second)).events.map((e) => e.type)).toContain('tenant_budget');
      await saveHistoryIfRecording(client.workflow.getHandle(first), 'agent-tenant-budget');
      await saveHistoryIfRecording(client.workflow.getHandle(second), 'agent-tenant-budget-wait');
    });
  });

  it('a run whose ledger is gone stops with reason budget before its next call: the budget fails closed', async () => {
    const tenant = newTenant('gone');
    fx.fake.respond((request) =>
      toolResults(request) === 0
        ? reply.toolCalls([{ name: 'slow_step', arguments: { label: 'y' } }])
        : reply.text('Never sent.'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      await agents.setTenantBudget(tenant, { maxCostUsd: 1, period: 'day' });
      const id = await agents.start({
        call: { maxTokens: 200 },
        fleet: { tenant: tenant },
        task: 'Take a slow step.',
        model: PRIMARY,
      });
      await waitFor(() => fx.calls.includes('slow_step:y'), 'the slow step');
      await client.workflow.getHandle(ledgerWorkflowId(tenant)).terminate('the ledger is gone');
      fx.latch.open();
      const result = await agents.result(id);
      expect(result.stopReason).toBe('budget');
      expect(fx.fake.requests).toHaveLength(1);
      expect((await agents.state(id)).tenantBudget?.refused).toMatch(/ledger/);
      await expect(agents.tenantBudget(tenant)).rejects.toThrow(/has no budget/);
    });
  });
});
