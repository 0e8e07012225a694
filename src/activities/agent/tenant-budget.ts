/**
 * A run's side of its tenant's budget (docs/fleet.md, Tenant budgets across runs): whether the
 * tenant has a ledger, and the reservations and settlements sent to it as updates through the
 * worker's own client. A refusal comes back as a value; a ledger that cannot be reached fails the
 * activity, which the run's retry policy bounds (and the run then takes as a refusal).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { BUDGET_FAILURE } from '../../contracts/failure-types';
import type { PinToolsInput, PinToolsOutput } from '../../contracts/tool-pin';
import {
  ledgerWorkflowId,
  reserveBudgetUpdate,
  settleBudgetUpdate,
  type BudgetActivities,
  type ReserveOutcome,
} from '../../contracts/tenant-budget';

const ledgerOf = (tenant: string): WorkflowHandle =>
  Context.current().client.workflow.getHandle(ledgerWorkflowId(tenant));

/** Whether `tenant` has a running ledger, i.e. a budget. */
async function hasTenantBudget(tenant: string): Promise<boolean> {
  try {
    return (await ledgerOf(tenant).describe()).status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** `pinTools` that also says whether the run's tenant has a budget: a run asks once, when it starts. */
export function withTenantBudget(
  pinTools: (input: PinToolsInput) => Promise<PinToolsOutput>,
): (input: PinToolsInput) => Promise<PinToolsOutput> {
  return async (input) => {
    const [pinned, budget] = await Promise.all([
      pinTools(input),
      input.tenant === undefined ? false : hasTenantBudget(input.tenant),
    ]);
    return budget ? { ...pinned, tenantBudget: true } : pinned;
  };
}

/** The failure type of a refused update, when the ledger's validator refused it. */
const refusalType = (err: unknown): string | undefined =>
  err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure
    ? (err.cause.type ?? undefined)
    : undefined;

export function budgetActivities(): BudgetActivities {
  return {
    async reserveBudget({ tenant, ...reservation }): Promise<ReserveOutcome> {
      try {
        const grant = await ledgerOf(tenant).executeUpdate(reserveBudgetUpdate, {
          args: [reservation],
          updateId: `reserve:${reservation.key}`,
        });
        return { outcome: 'granted', view: grant.view };
      } catch (err) {
        const type = refusalType(err);
        const message = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : '';
        if (type === BUDGET_FAILURE.exceeded) return { outcome: 'exceeded', message };
        if (type === BUDGET_FAILURE.busy) return { outcome: 'busy', message };
        // Its budget was removed since the run was told of it: fail closed.
        if (err instanceof WorkflowNotFoundError)
          return { outcome: 'exceeded', message: `tenant ${tenant} has no running ledger` };
        if (type === BUDGET_FAILURE.invalid) throw ApplicationFailure.create({ type, message, nonRetryable: true });
        throw err;
      }
    },

    async settleBudget({ tenant, ...settlement }): Promise<void> {
      try {
        await ledgerOf(tenant).executeUpdate(settleBudgetUpdate, {
          args: [settlement],
          updateId: `settle:${settlement.key}`,
        });
      } catch (err) {
        // A ledger that is gone has nothing left to settle.
        if (err instanceof WorkflowNotFoundError) return;
        const type = refusalType(err);
        if (type === BUDGET_FAILURE.invalid)
          throw ApplicationFailure.create({ type, message: (err as Error).message, nonRetryable: true });
        throw err;
      }
    },
  };
}
