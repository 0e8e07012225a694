/**
 * The tenant ledger across a worker rollout, on worker processes of two versions of one deployment:
 * the ledger follows the current version, so once v2 is current and v1 stopped, tenant runs on v2
 * reserve and complete, `budget set` and `budget show` answer in seconds, and v1 drains. A ledger
 * held on a version whose workers are gone (one an older build pinned) is refused by `budget`
 * within its deadline, with exit code 5, instead of a wait without end.
 */
import crypto from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { AgentClient } from '../../src/client';
import { ledgerWorkflowId } from '../../src/contracts/tenant-budget';
import { reply } from '../../src/testing/fake-provider';
import { PRIMARY } from '../agent/agent-kit';
import { runCli } from '../kit/cli';
import { drainageReaches, setCurrentVersion, versioningOf } from '../kit/deployments';
import { testConnection } from '../kit/temporal';
import { useWorkerHosts, type WorkerProcess } from '../kit/worker-process';

const newTenant = (name: string): string => `${name}-${crypto.randomUUID().slice(0, 8)}`;
const version = (deployment: string, buildId: string) => ({
  DURABLE_AGENTS_DEPLOYMENT: deployment,
  DURABLE_AGENTS_BUILD_ID: buildId,
});

describe('the tenant ledger across a rollout', () => {
  const hosts = useWorkerHosts('rollout');

  /** v1 current with a tenant budget set and one tenant run done, then v2 current and v1 stopped. */
  async function rollOut(name: string) {
    hosts.fake.reset();
    hosts.fake.respond(() => reply.text('Done.', { usage: { input: 100, output: 50 } }));
    const deployment = `${name}-${crypto.randomUUID().slice(0, 8)}`;
    const taskQueue = `${name}-${crypto.randomUUID()}`;
    const { client, address, namespace } = await testConnection();
    const agents = new AgentClient(client, taskQueue);
    const tenant = newTenant(name);
    const v1: WorkerProcess = await hosts.start(taskQueue, version(deployment, 'v1'));
    await setCurrentVersion(client, deployment, 'v1', taskQueue);
    await agents.setTenantBudget(tenant, { maxCostUsd: 5, period: 'total' });
    const options = { model: PRIMARY, fleet: { tenant }, call: { maxTokens: 200 }, tools: { allow: [] } };
    expect(await agents.run({ task: 'Before the rollout.', ...options })).toMatchObject({ stopReason: 'completed' });
    await hosts.start(taskQueue, version(deployment, 'v2'));
    await setCurrentVersion(client, deployment, 'v2', taskQueue);
    await v1.stop();
    const env = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_TASK_QUEUE: taskQueue };
    return { client, agents, tenant, deployment, options, env };
  }

  it('follows v2 once v1 is stopped: tenant runs complete, budget set and show answer in seconds, v1 drains', async () => {
    const { client, agents, tenant, deployment, options, env } = await rollOut('follow');
    const after = await agents.run({ task: 'After the rollout.', ...options });
    expect(after).toMatchObject({ stopReason: 'completed', finalText: 'Done.' });
    expect(after.costUsd).toBeGreaterThan(0);
    expect(await versioningOf(client, ledgerWorkflowId(tenant))).toEqual({
      behavior: 'VERSIONING_BEHAVIOR_AUTO_UPGRADE',
      version: `${deployment}:v2`,
    });

    let started = Date.now();
    const set = await runCli(['budget', 'set', tenant, '--max-cost', '6', '--period', 'total'], { env });
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(Date.now() - started).toBeLessThan(10_000);
    started = Date.now();
    const show = await runCli(['budget', 'show', tenant, '--json'], { env });
    expect(show.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(JSON.parse(show.stdout)).toMatchObject({ limits: { maxCostUsd: 6 }, openReservations: 0 });
    expect(JSON.parse(show.stdout).spent.usd).toBeCloseTo(2 * after.costUsd, 10);
    // Nothing is left on v1: its runs ended, and the ledger does not hold it.
    await drainageReaches(client, deployment, 'v1', 'DRAINED');
  }, 300_000);

  it('a ledger held on a version whose workers are gone: budget show and set exit 5 within their deadline', async () => {
    const { client, tenant, deployment, env } = await rollOut('held');
    // As a ledger an older build started stays pinned to it.
    await client.workflowService.updateWorkflowExecutionOptions({
      namespace: client.options.namespace,
      workflowExecution: { workflowId: ledgerWorkflowId(tenant) },
      workflowExecutionOptions: {
        versioningOverride: {
          pinned: {
            behavior:
              temporal.api.workflow.v1.VersioningOverride.PinnedOverrideBehavior.PINNED_OVERRIDE_BEHAVIOR_PINNED,
            version: { deploymentName: deployment, buildId: 'v1' },
          },
        },
      },
      updateMask: { paths: ['versioning_override'] },
    });
    for (const args of [
      ['budget', 'show', tenant],
      ['budget', 'set', tenant, '--max-cost', '6', '--period', 'total'],
    ]) {
      const started = Date.now();
      const result = await runCli(args, { env });
      expect(Date.now() - started).toBeLessThan(25_000);
      expect(result).toMatchObject({ code: 5, stdout: '' });
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^durable-agents: tenant ${tenant}'s ledger did not answer within 15 s`)),
      ]);
    }
  }, 300_000);
});
