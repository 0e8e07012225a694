/**
 * The ledger of one tenant's budget (docs/fleet.md, Tenant budgets across runs): a long-lived
 * workflow that changes only through validated updates. Its handlers are synchronous, so each
 * update sees and leaves a whole state. It wakes at its period's end and its oldest reservation's
 * expiry, and continues as new as its history grows, carrying its totals and open reservations.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  makeContinueAsNewFunc,
  setHandler,
  setWorkflowOptions,
  workflowInfo,
} from '@temporalio/workflow';
import { AGENT_FAILURE, BUDGET_FAILURE } from '../../contracts/failure-types';
import {
  LEDGER_CARRIED_VERSION,
  configureBudgetUpdate,
  ledgerQuery,
  reserveBudgetUpdate,
  settleBudgetUpdate,
  type LedgerInput,
  type LedgerState,
} from '../../contracts/tenant-budget';
import { amountProblems, budgetLimitsProblems } from '../../policy/tenant-budget';
import {
  advance,
  configure,
  ledgerView,
  newLedger,
  nextDeadline,
  reserve,
  reserveDecision,
  settle,
} from '../../policy/tenant-ledger';
import { pinnedOnVersionedWorkers } from '../versioning-behavior';

/** Updates one ledger run takes before it continues as new (Temporal allows 2,000 a run). */
export const LEDGER_UPDATES_PER_RUN = 1_000;

const now = (): number => new Date().getTime();

const invalid = (problems: string[]): void => {
  if (problems.length > 0)
    throw ApplicationFailure.create({ type: BUDGET_FAILURE.invalid, message: problems.join('; '), nonRetryable: true });
};

function startState(input: LedgerInput): LedgerState {
  if (input.carry) {
    if (input.carriedVersion !== LEDGER_CARRIED_VERSION)
      throw ApplicationFailure.nonRetryable(
        `This ledger was carried over with version ${input.carriedVersion ?? 'none'}; this workflow code reads ` +
          `version ${LEDGER_CARRIED_VERSION}. Run it on workers of the code that carried it.`,
        AGENT_FAILURE.carriedVersion,
      );
    return input.carry;
  }
  if (!input.limits) throw ApplicationFailure.nonRetryable('a new ledger needs its budget', BUDGET_FAILURE.invalid);
  invalid(budgetLimitsProblems(input.limits));
  return newLedger(input.tenant, input.limits, now());
}

/** One tenant's ledger: started by `budget set`, never completes; it continues as new instead. */
export async function tenantLedgerWorkflow(input: LedgerInput): Promise<void> {
  let state = startState(input);
  let handled = 0;
  let reconfigured = false;
  const current = (): LedgerState => (state = advance(state, now()));

  setHandler(
    configureBudgetUpdate,
    (limits) => {
      handled++;
      reconfigured = true;
      state = configure(current(), limits, now());
      return ledgerView(state);
    },
    { validator: (limits) => invalid(budgetLimitsProblems(limits)) },
  );
  setHandler(
    reserveBudgetUpdate,
    (reservation) => {
      handled++;
      state = reserve(current(), reservation, now());
      return { granted: true, view: ledgerView(state) };
    },
    {
      // A refusal is the validator's: it leaves no trace in the ledger's history.
      validator: (reservation) => {
        invalid(amountProblems(reservation));
        const decision = reserveDecision(advance(state, now()), reservation);
        if (decision.kind === 'exceeded' || decision.kind === 'busy')
          throw ApplicationFailure.create({
            type: decision.kind === 'exceeded' ? BUDGET_FAILURE.exceeded : BUDGET_FAILURE.busy,
            message: decision.message,
            nonRetryable: true,
          });
      },
    },
  );
  setHandler(
    settleBudgetUpdate,
    (settlement) => {
      handled++;
      state = settle(current(), settlement);
      return ledgerView(state);
    },
    { validator: (settlement) => invalid(amountProblems(settlement)) },
  );
  setHandler(ledgerQuery, () => ledgerView(advance(state, now())));

  const handOver = (): boolean =>
    handled >= LEDGER_UPDATES_PER_RUN ||
    workflowInfo().continueAsNewSuggested ||
    workflowInfo().targetWorkerDeploymentVersionChanged;
  const wake = (): boolean => handOver() || reconfigured;
  while (!handOver()) {
    reconfigured = false;
    const deadline = nextDeadline(current());
    if (deadline === undefined) await condition(wake);
    else
      await condition(wake, Math.max(1, deadline - now()), {
        summary: 'until the period ends or a reservation expires',
      });
  }
  await condition(allHandlersFinished);
  // A ledger pinned to a worker version moves to the deployment's current version as it hands over.
  const versioned = Boolean(workflowInfo().currentDeploymentVersion?.deploymentName);
  const next = versioned
    ? makeContinueAsNewFunc<typeof tenantLedgerWorkflow>({ initialVersioningBehavior: 'AUTO_UPGRADE' })
    : continueAsNew<typeof tenantLedgerWorkflow>;
  await next({ tenant: state.tenant, carry: current(), carriedVersion: LEDGER_CARRIED_VERSION });
}

setWorkflowOptions(pinnedOnVersionedWorkers, tenantLedgerWorkflow);
