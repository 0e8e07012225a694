/**
 * Tenant budgets from the client (docs/fleet.md, Tenant budgets across runs): `budget set` starts
 * the tenant's ledger, or changes its budget, with one update-with-start, then tells the tenant's
 * open runs; `budget show` reads the ledger's query.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { AGENT_SEARCH_ATTRIBUTES as SA } from '../contracts/search-attributes';
import {
  LEDGER_WORKFLOW,
  configureBudgetUpdate,
  ledgerQuery,
  ledgerWorkflowId,
  tenantBudgetSignal,
  type LedgerInput,
  type LedgerView,
  type TenantBudgetLimits,
} from '../contracts/tenant-budget';
import { tenantProblem } from '../policy/tenancy';
import { budgetLimitsProblems } from '../policy/tenant-budget';
import { AgentClientError, NoWorkerError, noWorkerFor } from './client-errors';
import { hasWorkflowPollers } from './run-reads';

/** The ledger's tasks go first on a queue shared with runs: a backlog of runs must not hold up their reservations. */
const LEDGER_PRIORITY = { priorityKey: 1 };

function checkTenant(tenant: string): void {
  const problem = tenantProblem(tenant);
  if (problem) throw new AgentClientError(problem);
}

/** The task queue of `tenant`'s running ledger, or undefined when it has none. */
async function ledgerQueue(client: Client, tenant: string): Promise<string | undefined> {
  try {
    const described = await client.workflow.getHandle(ledgerWorkflowId(tenant)).describe();
    return described.status.name === 'RUNNING' ? described.taskQueue : undefined;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** How long `budget set` and `budget show` wait for the ledger's answer. */
export const LEDGER_ANSWER_MS = 15_000;
/** The server answers a call it cannot finish a little before the caller's deadline (a query's "Failed to query"). */
const DEADLINE_SLACK_MS = 2_000;

/**
 * Runs `ask` against `tenant`'s ledger within {@link LEDGER_ANSWER_MS}: a ledger no worker serves
 * (none polls its queue, or none of the version it is on) is refused in one line instead of a wait.
 */
async function withinDeadline<R>(client: Client, tenant: string, taskQueue: string, ask: () => Promise<R>): Promise<R> {
  const deadline = Date.now() + LEDGER_ANSWER_MS;
  try {
    return await client.withDeadline(deadline, ask);
  } catch (err) {
    const refused = err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError;
    if (refused || Date.now() < deadline - DEADLINE_SLACK_MS) throw err;
    throw new NoWorkerError(
      `tenant ${tenant}'s ledger did not answer within ${LEDGER_ANSWER_MS / 1000} s: no worker on task queue ` +
        `"${taskQueue}" took its task (a ledger started by an older build may be pinned to a version whose ` +
        'workers are gone; start one of them); a change sent now is applied when a worker takes it',
      taskQueue,
    );
  }
}

/** How long a queue without pollers gets to show one (a worker that has just started) before the refusal. */
const POLLER_GRACE_MS = 3_000;

/** Refuses, rather than wait for ever, when no worker polls the queue that would serve the ledger. */
async function requireWorker(client: Client, taskQueue: string, tenant: string): Promise<void> {
  const deadline = Date.now() + POLLER_GRACE_MS;
  while (!(await hasWorkflowPollers(client, taskQueue))) {
    if (Date.now() >= deadline) throw noWorkerFor(taskQueue, `keep tenant ${tenant}'s ledger`);
    await sleep(250);
  }
}

/** What setting a budget did: the ledger as it now stands, and how many open runs of the tenant were told. */
export interface TenantBudgetSet {
  ledger: LedgerView;
  toldRuns: number;
}

/**
 * Sets `tenant`'s budget: starts its ledger on `taskQueue` if it has none, else changes it (the same
 * period keeps its spend). Open runs of the tenant are told, so their next model calls reserve too.
 */
export async function setTenantBudget(
  client: Client,
  taskQueue: string,
  tenant: string,
  limits: TenantBudgetLimits,
): Promise<TenantBudgetSet> {
  checkTenant(tenant);
  const problems = budgetLimitsProblems(limits);
  if (problems.length > 0) throw new AgentClientError(`invalid budget: ${problems.join('; ')}`);
  const queue = (await ledgerQueue(client, tenant)) ?? taskQueue;
  await requireWorker(client, queue, tenant);
  let ledger: LedgerView;
  try {
    ledger = await withinDeadline(client, tenant, queue, () =>
      client.workflow.executeUpdateWithStart(configureBudgetUpdate, {
        args: [limits],
        startWorkflowOperation: new WithStartWorkflowOperation(LEDGER_WORKFLOW, {
          workflowId: ledgerWorkflowId(tenant),
          taskQueue,
          args: [{ tenant, limits } satisfies LedgerInput],
          workflowIdConflictPolicy: 'USE_EXISTING',
          priority: LEDGER_PRIORITY,
          staticSummary: `Budget ledger of tenant ${tenant}`,
        }),
      }),
    );
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure)
      throw new AgentClientError(`invalid budget: ${err.cause.message}`);
    throw err;
  }
  return { ledger, toldRuns: await tellOpenRuns(client, tenant) };
}

/** Signals every open run of `tenant` that it has a budget now; returns how many were told. */
async function tellOpenRuns(client: Client, tenant: string): Promise<number> {
  let told = 0;
  const query = `${SA.tenant.name} = ${JSON.stringify(tenant)} AND ExecutionStatus = 'Running'`;
  for await (const run of client.workflow.list({ query })) {
    try {
      await client.workflow.getHandle(run.workflowId, run.runId).signal(tenantBudgetSignal);
      told++;
    } catch (err) {
      // A run that ended in the meantime needs no telling.
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return told;
}

/** `tenant`'s ledger: its budget, the period, what is spent, reserved and left. */
export async function tenantBudgetView(client: Client, tenant: string): Promise<LedgerView> {
  checkTenant(tenant);
  const queue = await ledgerQueue(client, tenant);
  if (queue === undefined)
    throw new AgentClientError(
      `tenant "${tenant}" has no budget: set one with ` +
        `\`durable-agents budget set ${tenant} --max-cost USD --period day|month|total\``,
    );
  await requireWorker(client, queue, tenant);
  return withinDeadline(client, tenant, queue, () =>
    client.workflow.getHandle(ledgerWorkflowId(tenant)).query(ledgerQuery),
  );
}
