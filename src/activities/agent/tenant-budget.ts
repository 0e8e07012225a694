/**
 * A run's side of its tenant's budget (docs/fleet.md, Tenant budgets across runs): whether the
 * tenant has a ledger, and the reservations, settlements and releases sent to it as updates through
 * the worker's own client. A refusal comes back as a value; a ledger that cannot be reached fails
 * the activity, which the run's retry policy bounds (and the run then takes as a refusal).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { UpdateDefinition } from '@temporalio/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { BUDGET_FAILURE } from '../../contracts/failure-types';
import type { PinToolsInput, PinToolsOutput } from '../../contracts/tool-pin';
import {
  ledgerWorkflowId,
  releaseBudgetUpdate,
  reserveBudgetUpdate,
  settleBudgetUpdate,
  type BudgetActivities,
  type ReserveInput,
  type ReserveOutcome,
  type SettleInput,
  type SettleAnswer,
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

const causeMessage = (err: unknown): string =>
  err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);

/**
 * Asks `tenant`'s ledger for `reservation`. Each ask has an update id of its own (its key and the
 * time its run waits for it until), so asking again after waiting in line gets a fresh answer,
 * while an activity's retry gets the first.
 */
export async function reserveWith(tenant: string, reservation: ReserveInput): Promise<ReserveOutcome> {
  const admission = reservation.admit ? { admission: true as const } : {};
  try {
    const reply = await ledgerOf(tenant).executeUpdate(reserveBudgetUpdate, {
      args: [reservation],
      updateId: `reserve:${reservation.key}${reservation.notAfter === undefined ? '' : `:${reservation.notAfter}`}`,
    });
    if (!reply.granted) return { outcome: 'queued', message: reply.queued, ...admission };
    return { outcome: 'granted', view: reply.view, ...(reply.admitted ? { admitted: true } : {}), ...admission };
  } catch (err) {
    const type = refusalType(err);
    const message = causeMessage(err);
    if (type === BUDGET_FAILURE.exceeded) return { outcome: 'exceeded', message, ...admission };
    if (type === BUDGET_FAILURE.busy) return { outcome: 'busy', message, ...admission };
    if (type === BUDGET_FAILURE.queued) return { outcome: 'queued', message, ...admission };
    // Its budget was removed since the run was told of it: fail closed.
    if (err instanceof WorkflowNotFoundError)
      return { outcome: 'exceeded', message: `tenant ${tenant} has no running ledger`, ...admission };
    if (type === BUDGET_FAILURE.invalid || type === BUDGET_FAILURE.stale)
      throw ApplicationFailure.create({ type, message, nonRetryable: true });
    throw err;
  }
}

/** Sends `update` to `tenant`'s ledger; a ledger that is gone has nothing left to settle or release. */
async function updateLedger<R, A>(
  tenant: string,
  update: UpdateDefinition<R, [A]>,
  arg: A,
  updateId: string,
): Promise<R | undefined> {
  try {
    return await ledgerOf(tenant).executeUpdate(update, { args: [arg], updateId });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    const type = refusalType(err);
    if (type === BUDGET_FAILURE.invalid)
      throw ApplicationFailure.create({ type, message: causeMessage(err), nonRetryable: true });
    throw err;
  }
}

/** Settles `settlement` with `tenant`'s ledger; a ledger that is gone has nothing left to settle. */
export const settleWith = (tenant: string, settlement: SettleInput): Promise<SettleAnswer | undefined> =>
  updateLedger(tenant, settleBudgetUpdate, settlement, `settle:${settlement.key}${settlement.lost ? ':lost' : ''}`);

export function budgetActivities(): BudgetActivities {
  return {
    reserveBudget: ({ tenant, ...reservation }) => reserveWith(tenant, reservation),

    async settleBudget({ tenant, ...settlement }) {
      const answer = await settleWith(tenant, settlement);
      return answer?.lost ? { lost: answer.lost } : {};
    },

    async releaseBudget({ tenant, ...ended }): Promise<void> {
      await updateLedger(tenant, releaseBudgetUpdate, ended, `release:${ended.run}`);
    },
  };
}
