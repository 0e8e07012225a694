/**
 * The ledger of one tenant's budget (docs/fleet.md, Tenant budgets across runs): a long-lived
 * workflow that changes only through validated updates. Its handlers are synchronous, so each
 * update sees and leaves a whole state. It tells runs whose requests waited in line when it is
 * their turn, wakes at its period's end and at the expiry of its reservations and holds, and
 * continues as new as its history grows, carrying its state. On versioned workers it follows the
 * deployment's current version at its next task, so it never waits for an old version's workers.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  makeContinueAsNewFunc,
  patched,
  setHandler,
  setWorkflowOptions,
  workflowInfo,
} from '@temporalio/workflow';
import { AGENT_FAILURE, BUDGET_FAILURE } from '../../contracts/failure-types';
import {
  LEDGER_CARRIED_VERSION,
  budgetAnswerSignal,
  configureBudgetUpdate,
  ledgerQuery,
  releaseBudgetUpdate,
  reserveBudgetUpdate,
  settleBudgetUpdate,
  type LedgerInput,
  type LedgerState,
} from '../../contracts/tenant-budget';
import { amountProblems, budgetLimitsProblems, releaseProblems, reserveProblems } from '../../policy/tenant-budget';
import {
  advance,
  carriedLedger,
  configure,
  loseAttempts,
  newLedger,
  nextDeadline,
  release,
  settle,
  settleCall,
} from '../../policy/tenant-ledger';
import { promote, request, reserveDecision, type Told } from '../../policy/ledger-line';
import { ledgerView } from '../../policy/ledger-view';
import { autoUpgradeOnVersionedWorkers } from '../versioning-behavior';

/**
 * Runs hold their expected cost until they end (`LedgerState.holdSavings`): a ledger started on
 * code without it keeps its old grants until it continues as new. Goes at the next baseline.
 */
export const HOLD_SAVINGS_PATCH = 'ledger-hold-savings';

/** Updates one ledger run takes before it continues as new (Temporal allows 2,000 a run). */
export const LEDGER_UPDATES_PER_RUN = 1_000;

const now = (): number => new Date().getTime();

const refuse = (type: string, message: string): never => {
  throw ApplicationFailure.create({ type, message, nonRetryable: true });
};
const invalid = (problems: string[]): void => {
  if (problems.length > 0) refuse(BUDGET_FAILURE.invalid, problems.join('; '));
};

function startState(input: LedgerInput): LedgerState {
  if (input.carry) {
    const carried = carriedLedger(input.carry, input.carriedVersion);
    if (!carried)
      throw ApplicationFailure.nonRetryable(
        `This ledger was carried over with version ${input.carriedVersion ?? 'none'}; this workflow code reads ` +
          `versions 1 to ${LEDGER_CARRIED_VERSION}. Run it on workers of the code that carried it.`,
        AGENT_FAILURE.carriedVersion,
      );
    return carried;
  }
  if (!input.limits) throw ApplicationFailure.nonRetryable('a new ledger needs its budget', BUDGET_FAILURE.invalid);
  invalid(budgetLimitsProblems(input.limits));
  return newLedger(input.tenant, input.limits, now());
}

/** One tenant's ledger: started by `budget set`, never completes; it continues as new instead. */
export async function tenantLedgerWorkflow(input: LedgerInput): Promise<void> {
  let state = startState(input);
  if (patched(HOLD_SAVINGS_PATCH)) state = { ...state, holdSavings: true };
  let handled = 0;
  let reconfigured = false;
  /** Runs to tell that their request's turn came. */
  const outbox: Told[] = [];
  const current = (): LedgerState => (state = advance(state, now()));
  /** Takes `next`, then serves the line: what it freed may let waiting requests through. */
  const serve = (next: LedgerState): void => {
    const served = promote(next, now());
    state = served.state;
    outbox.push(...served.told);
  };

  setHandler(
    configureBudgetUpdate,
    (limits) => {
      handled++;
      reconfigured = true;
      serve(configure(current(), limits, now()));
      return ledgerView(state);
    },
    { validator: (limits) => invalid(budgetLimitsProblems(limits)) },
  );
  setHandler(
    reserveBudgetUpdate,
    (reservation) => {
      handled++;
      const taken = request(current(), reservation, now());
      state = taken.state;
      if (taken.decision.kind === 'queue') return { granted: false as const, queued: taken.decision.message };
      return {
        granted: true as const,
        view: ledgerView(state),
        ...(reservation.admit ? { admitted: true as const } : {}),
        ...(taken.lost ? { lost: taken.lost } : {}),
      };
    },
    {
      // A refusal is the validator's: it leaves no trace in the ledger's history.
      validator: (reservation) => {
        invalid(reserveProblems(reservation));
        const at = now();
        if (reservation.notAfter !== undefined && at > reservation.notAfter)
          refuse(
            BUDGET_FAILURE.stale,
            `the request for ${reservation.key} reached tenant ${state.tenant}'s ledger ` +
              `${Math.round((at - reservation.notAfter) / 1000)} s after its run stopped waiting for it: not counted`,
          );
        const advanced = advance(state, at);
        const seen = reservation.call ? loseAttempts(advanced, reservation.call, reservation.key).state : advanced;
        const decision = reserveDecision(seen, reservation);
        if (decision.kind === 'exceeded') refuse(BUDGET_FAILURE.exceeded, decision.message);
        if (decision.kind === 'busy') refuse(BUDGET_FAILURE.busy, decision.message);
        if (decision.kind === 'queued') refuse(BUDGET_FAILURE.queued, decision.message);
      },
    },
  );
  setHandler(
    settleBudgetUpdate,
    (settlement) => {
      handled++;
      const settled = settleCall(current(), settlement);
      serve(settled.state);
      return { ...ledgerView(state), ...(settled.lost ? { lost: settled.lost } : {}) };
    },
    { validator: (settlement) => invalid(amountProblems(settlement)) },
  );
  setHandler(
    releaseBudgetUpdate,
    (ended) => {
      handled++;
      serve(release(current(), ended, now()));
      return ledgerView(state);
    },
    { validator: (ended) => invalid(releaseProblems(ended)) },
  );
  setHandler(ledgerQuery, () => ledgerView(advance(state, now())));

  /** Tells the runs in the outbox; a grant to a run that is gone is given back. */
  const tell = async (): Promise<void> => {
    while (outbox.length > 0) {
      const batch = outbox.splice(0);
      await Promise.all(
        batch.map(async ({ run, answer }) => {
          try {
            await getExternalWorkflowHandle(run).signal(budgetAnswerSignal, answer);
          } catch (err) {
            if (isCancellation(err)) throw err;
            if (answer.granted)
              serve(release(settle(current(), { key: answer.key, usd: 0, tokens: 0 }), { run }, now()));
          }
        }),
      );
    }
  };

  const handOver = (): boolean => handled >= LEDGER_UPDATES_PER_RUN || workflowInfo().continueAsNewSuggested;
  const wake = (): boolean => handOver() || reconfigured || outbox.length > 0;
  while (!handOver()) {
    await tell();
    reconfigured = false;
    const deadline = nextDeadline(current());
    if (deadline === undefined) await condition(wake);
    else
      await condition(wake, Math.max(1, deadline - now()), {
        summary: 'until the period ends or a reservation expires',
      });
    // Expired reservations and holds free budget for the line.
    serve(current());
  }
  await condition(allHandlersFinished);
  await tell();
  const versioned = Boolean(workflowInfo().currentDeploymentVersion?.deploymentName);
  const next = versioned
    ? makeContinueAsNewFunc<typeof tenantLedgerWorkflow>({ initialVersioningBehavior: 'AUTO_UPGRADE' })
    : continueAsNew<typeof tenantLedgerWorkflow>;
  await next({ tenant: state.tenant, carry: current(), carriedVersion: LEDGER_CARRIED_VERSION });
}

setWorkflowOptions(autoUpgradeOnVersionedWorkers, tenantLedgerWorkflow);
