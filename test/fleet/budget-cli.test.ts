/**
 * `durable-agents budget set/show` against the real dev server with a worker serving the ledger;
 * every bad input is refused in one line with exit code 2 and changes nothing.
 */
import crypto from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { AgentClient } from '../../src/client';
import { ledgerWorkflowId } from '../../src/contracts/tenant-budget';
import { runCli } from '../kit/cli';
import { testConnection, withWorker } from '../kit/temporal';

describe('durable-agents budget', () => {
  const tenant = `cli-${crypto.randomUUID().slice(0, 8)}`;

  /** The CLI's environment for the worker's task queue. */
  async function cliEnv(taskQueue: string): Promise<NodeJS.ProcessEnv> {
    const { address, namespace } = await testConnection();
    return { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_TASK_QUEUE: taskQueue };
  }

  it('set starts the ledger and show prints spent, reserved and remaining, as text and JSON', async () => {
    await withWorker({}, async ({ taskQueue }) => {
      const env = await cliEnv(taskQueue);
      const set = await runCli(['budget', 'set', tenant, '--max-cost', '50', '--period', 'month'], { env });
      expect(set).toMatchObject({ code: 0, stderr: '' });
      expect(set.stdout).toMatch(new RegExp(`^tenant ${tenant}: \\$50 a month \\(UTC\\)\\n`));
      expect(set.stdout).toMatch(
        /spent: \$0\.0000 \(0 tokens\)\nreserved: \$0\.0000 \(0 tokens\) by 0 calls in progress/,
      );
      expect(set.stdout).toMatch(/remaining: \$50\.00\n$/);

      const changed = await runCli(
        ['budget', 'set', tenant, '--max-cost', '5', '--max-tokens', '100000', '--period', 'day'],
        { env },
      );
      expect(changed.code).toBe(0);
      const show = await runCli(['budget', 'show', tenant, '--json'], { env });
      expect(show.code).toBe(0);
      const view = JSON.parse(show.stdout);
      expect(view).toMatchObject({
        tenant,
        limits: { maxCostUsd: 5, maxTokens: 100_000, period: 'day' },
        spent: { usd: 0, tokens: 0 },
        reserved: { usd: 0, tokens: 0 },
        remaining: { usd: 5, tokens: 100_000 },
        openReservations: 0,
      });
      const start = new Date(view.period.start);
      expect(start.getUTCHours() + start.getUTCMinutes()).toBe(0);
      expect(Date.parse(view.period.end) - start.getTime()).toBe(24 * 3600 * 1000);
      const text = await runCli(['budget', 'show', tenant], { env });
      expect(text.stdout).toContain(`tenant ${tenant}: $5 and 100000 tokens a day (UTC)`);
    });
  });

  it.each([
    [['budget', 'set', 'x', '--max-cost', '0', '--period', 'day'], /"0" is not a number of USD from 0\.000001 to/],
    [['budget', 'set', 'x', '--max-cost', '-3', '--period', 'day'], /"-3" is not a number of USD from 0\.000001 to/],
    [['budget', 'set', 'x', '--max-cost', 'lots', '--period', 'day'], /"lots" is not a number of USD from/],
    [['budget', 'set', 'x', '--max-cost', '0x10', '--period', 'day'], /"0x10" is not a number of USD from/],
    [['budget', 'set', 'x', '--max-cost', '1e-300', '--period', 'day'], /"1e-300" is not a number of USD from/],
    [['budget', 'set', 'x', '--max-cost', '5', '--max-tokens', '0', '--period', 'day'], /not a whole number of at/],
    [['budget', 'set', 'x', '--max-cost', '5', '--max-tokens', '0x10', '--period', 'day'], /"0x10" is not a whole/],
    [['budget', 'set', 'x', '--max-cost', '5', '--period', 'week'], /week.*Allowed choices are day, month, total/],
    [['budget', 'set', 'x', '--max-cost', '5'], /--period <period>' not specified/],
    [['budget', 'set', 'two words', '--max-cost', '5', '--period', 'day'], /tenant "two words" is not a valid key/],
    [['budget', 'show', 'no such tenant'], /tenant "no such tenant" is not a valid key/],
  ])('%j: one line, exit 2, no ledger started', async (args, message) => {
    const env = await cliEnv(`budget-refused-${crypto.randomUUID()}`);
    const result = await runCli(args, { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    const { client } = await testConnection();
    await expect(client.workflow.getHandle(ledgerWorkflowId(args[2])).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
  });

  it('set on a task queue no worker polls says so at once, in one line, exit 5, and starts no ledger', async () => {
    const queue = `budget-nobody-${crypto.randomUUID()}`;
    const own = `${tenant}-n`;
    const result = await runCli(['budget', 'set', own, '--max-cost', '5', '--period', 'day'], {
      env: await cliEnv(queue),
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(new RegExp(`no worker is polling task queue "${queue}".*${own}'s ledger`));
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    const { client } = await testConnection();
    await expect(client.workflow.getHandle(ledgerWorkflowId(own)).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
  });

  it('show of a tenant without a budget says how to set one, in one line, exit 2', async () => {
    const env = await cliEnv(`budget-show-${crypto.randomUUID()}`);
    const unknown = `nobody-${crypto.randomUUID().slice(0, 8)}`;
    const result = await runCli(['budget', 'show', unknown], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(`tenant "${unknown}" has no budget: set one with .durable-agents budget set ${unknown} --max-cost`),
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a bad budget sent to an existing ledger is refused and leaves it as it was', async () => {
    await withWorker({}, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue);
      const own = `${tenant}-b`;
      await agents.setTenantBudget(own, { maxCostUsd: 2, period: 'total' });
      await expect(agents.setTenantBudget(own, { maxCostUsd: -1, period: 'total' })).rejects.toThrow(
        /invalid budget: the budget's cost must be a number of USD above 0, got -1/,
      );
      await expect(agents.setTenantBudget(own, { maxCostUsd: 2, period: 'fortnight' as 'day' })).rejects.toThrow(
        /period must be one of day, month, total, got fortnight/,
      );
      expect((await agents.tenantBudget(own)).limits).toEqual({ maxCostUsd: 2, period: 'total' });
    });
  });
});
