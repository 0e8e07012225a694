/**
 * The tenant ledger is a long-lived workflow: its totals survive a worker killed in the middle of
 * a reserved call (whose lost attempt is charged at its estimate, in the run's cost too), and its
 * own continue-as-new, with open reservations and settled keys carried.
 */
import crypto from 'node:crypto';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { BUDGET_FAILURE } from '../../src/contracts/failure-types';
import { AgentClient } from '../../src/client';
import {
  ledgerWorkflowId,
  reserveBudgetUpdate,
  settleBudgetUpdate,
  type ReserveInput,
  type SettleInput,
} from '../../src/contracts/tenant-budget';
import { LEDGER_UPDATES_PER_RUN } from '../../src/workflows/ledger';
import { reply } from '../../src/testing/fake-provider';
import { PRIMARY, waitFor } from '../agent/agent-kit';
import { testConnection, withWorker } from '../kit/temporal';
import { useWorkerHosts } from '../kit/worker-process';

const newTenant = (name: string): string => `${name}-${crypto.randomUUID().slice(0, 8)}`;

describe('the tenant ledger', () => {
  const hosts = useWorkerHosts('ledger');

  it('keeps its totals across a worker SIGKILL in the middle of a reserved call, the lost attempt charged', async () => {
    const taskQueue = `ledger-kill-${crypto.randomUUID()}`;
    const first = await hosts.start(taskQueue);
    const { client } = await testConnection();
    const agents = new AgentClient(client, taskQueue);
    const tenant = newTenant('kill');
    await agents.setTenantBudget(tenant, { maxCostUsd: 1, period: 'month' });
    const usage = { input: 100, output: 50 };
    let arrivals = 0;
    hosts.fake.respond(() => (++arrivals === 2 ? reply.hang() : reply.text('Done.', { usage })));
    const options = { model: PRIMARY, fleet: { tenant }, call: { maxTokens: 200 }, tools: { allow: [] } };

    const before = await agents.run({ task: 'Before the kill.', ...options });
    expect(before.stopReason).toBe('completed');
    const id = await agents.start({ task: 'During the kill.', ...options });
    await waitFor(() => arrivals === 2, 'the call the worker dies in', 60_000);
    expect(await agents.tenantBudget(tenant)).toMatchObject({ openReservations: 1 });
    await hosts.start(taskQueue);
    await first.kill();

    const during = await agents.result(id);
    expect(during.stopReason).toBe('completed');
    const ledger = await agents.tenantBudget(tenant);
    expect(ledger).toMatchObject({ openReservations: 0, reserved: { usd: 0, tokens: 0 } });
    expect(ledger.spent.usd).toBeCloseTo(before.costUsd + during.costUsd, 10);
    // The attempt the worker died in may have been answered: it counts at its estimate.
    expect(ledger.spent.tokens).toBeGreaterThan(2 * (usage.input + usage.output));
    const { events } = await agents.state(id);
    expect(events).toContainEqual(expect.objectContaining({ type: 'tenant_budget', what: 'charged' }));
  }, 150_000);

  it('refuses a reservation that reaches it after its run stopped waiting, and counts nothing for it', async () => {
    const tenant = newTenant('late');
    await withWorker({}, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue);
      await agents.setTenantBudget(tenant, { maxCostUsd: 1, period: 'total' });
      const handle: WorkflowHandle = client.workflow.getHandle(ledgerWorkflowId(tenant));
      const late = { key: 'gone#1', usd: 0.1, tokens: 100, model: PRIMARY, run: 'gone', notAfter: Date.now() - 1_000 };
      const refusal = await handle.executeUpdate(reserveBudgetUpdate, { args: [late] }).catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((refusal as WorkflowUpdateFailedError).cause).toMatchObject({
        type: BUDGET_FAILURE.stale,
        message: expect.stringMatching(/after its run stopped waiting for it: not counted/),
      });
      expect(await agents.tenantBudget(tenant)).toMatchObject({ openReservations: 0, reserved: { usd: 0 } });
    });
  });

  it('keeps its totals, open reservations and settled keys across its own continue-as-new', async () => {
    const tenant = newTenant('carry');
    await withWorker({}, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue);
      await agents.setTenantBudget(tenant, { maxCostUsd: 1_000, maxTokens: 10_000_000, period: 'total' });
      const handle: WorkflowHandle = client.workflow.getHandle(ledgerWorkflowId(tenant));
      const { runId: firstRun } = await handle.describe();
      const reserve = (input: ReserveInput) => handle.executeUpdate(reserveBudgetUpdate, { args: [input] });
      const settle = (input: SettleInput) => handle.executeUpdate(settleBudgetUpdate, { args: [input] });

      await reserve({ key: 'open#1', usd: 0.5, tokens: 500, model: PRIMARY });
      const settles = LEDGER_UPDATES_PER_RUN + 20;
      for (let from = 0; from < settles; from += 8)
        await Promise.all(
          Array.from({ length: Math.min(8, settles - from) }, (_, k) =>
            settle({ key: `call#${from + k}`, usd: 0.01, tokens: 10 }),
          ),
        );
      const { runId: laterRun } = await handle.describe();
      expect(laterRun).not.toBe(firstRun);

      const view = await agents.tenantBudget(tenant);
      expect(view.spent.usd).toBeCloseTo(settles * 0.01, 8);
      expect(view).toMatchObject({ spent: { tokens: settles * 10 }, reserved: { usd: 0.5, tokens: 500 } });
      // A settlement sent again after the hand-over counts once; the carried reservation settles.
      await settle({ key: `call#${settles - 1}`, usd: 0.01, tokens: 10 });
      await settle({ key: 'open#1', usd: 0.25, tokens: 300 });
      const after = await agents.tenantBudget(tenant);
      expect(after.spent.usd).toBeCloseTo(settles * 0.01 + 0.25, 8);
      expect(after).toMatchObject({ spent: { tokens: settles * 10 + 300 }, openReservations: 0 });
    });
  }, 150_000);
});
