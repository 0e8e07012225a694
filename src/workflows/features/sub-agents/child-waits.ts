/**
 * Calls that wait for a person in a run's children reach its parent (docs/subagents.md, People): a
 * child reports what waits in it and in its own children (`childWaits` signal) whenever that
 * changes, and its parent keeps the newest report of each open child for its `state` view and its
 * current details, and passes it up to its own parent.
 */
import { getExternalWorkflowHandle, isCancellation, setHandler } from '@temporalio/workflow';
import { canonicalJson } from '../../../common/canonical-json';
import { childWaitsSignal } from '../../../contracts/agent-workflows';
import type { ChildBudget, ChildWaitsInput } from '../../../contracts/sub-agents';
import { updateCurrentDetails, type RunContext } from '../../agent/run-context';

type Waits = Pick<ChildWaitsInput, 'approvals' | 'clientTools'>;

const NOTHING_WAITS = canonicalJson({ approvals: [], clientTools: [] } satisfies Waits);

/**
 * What a run keeps of its children while they run, and of what it told its parent: in memory only,
 * since no child is open when the run continues as new.
 */
interface Delegation {
  /** The budget each open child started with, by child id: held for it until it ends. */
  reserved: Record<string, ChildBudget>;
  /** The last report of waiting calls sent to the parent (canonical JSON), and how many were sent. */
  reported?: string;
  reports: number;
}

const delegations = new WeakMap<RunContext, Delegation>();

/** The run's side of its sub-agents, made at its first use. */
export function delegationOf(ctx: RunContext): Delegation {
  if (!delegations.has(ctx)) delegations.set(ctx, { reserved: {}, reports: 0 });
  return delegations.get(ctx)!;
}

/** What waits in the run's open children, as their last reports said. */
export function waitsInChildren({ state }: RunContext): Waits {
  const children = Object.values(state.childWaits ?? {});
  return { approvals: children.flatMap((c) => c.approvals), clientTools: children.flatMap((c) => c.clientTools) };
}

/** What waits in the run and in its open children, each call with the run that holds it. */
function waitingIn(ctx: RunContext): Waits {
  const { state, workflowId: runId } = ctx;
  const children = waitsInChildren(ctx);
  return {
    approvals: [
      ...state.approvals
        .filter((a) => a.state === 'pending')
        .map(({ toolCallId, tool, args, argsHash }) => ({ runId, toolCallId, tool, args, argsHash })),
      ...children.approvals,
    ],
    clientTools: [
      ...state.clientTools
        .filter((c) => c.result === undefined)
        .map(({ toolCallId, tool, args }) => ({ runId, toolCallId, tool, args })),
      ...children.clientTools,
    ],
  };
}

/** Tells the parent of a child run what waits now, when that changed since the last report. */
export async function reportWaits(ctx: RunContext): Promise<void> {
  const parent = ctx.state.config.parent;
  if (!parent) return;
  const waits = waitingIn(ctx);
  const key = canonicalJson(waits);
  const delegation = delegationOf(ctx);
  if (key === (delegation.reported ?? NOTHING_WAITS)) return;
  delegation.reported = key;
  delegation.reports += 1;
  try {
    await getExternalWorkflowHandle(parent.workflowId).signal(childWaitsSignal, {
      childId: ctx.workflowId,
      seq: delegation.reports,
      ...waits,
    });
  } catch (err) {
    // A parent that has ended has nobody to show the calls to; the child's own state still does.
    if (isCancellation(err)) throw err;
  }
}

/** Takes each open child's newest report: into the state view and the details, and up to the run's own parent. */
export function registerChildWaits(ctx: RunContext): void {
  setHandler(childWaitsSignal, async (input) => {
    const { state } = ctx;
    const open = state.children?.some((c) => c.id === input?.childId && c.endedAt === undefined);
    const last = open ? state.childWaits?.[input.childId] : undefined;
    if (
      !open ||
      !Array.isArray(input.approvals) ||
      !Array.isArray(input.clientTools) ||
      (last && last.seq >= input.seq)
    )
      return;
    state.childWaits = { ...state.childWaits, [input.childId]: input };
    updateCurrentDetails(ctx);
    await reportWaits(ctx);
  });
}

/** Drops what a child that has ended reported (its calls no longer wait). */
export async function forgetWaits(ctx: RunContext, childId: string): Promise<void> {
  const { state } = ctx;
  if (!state.childWaits?.[childId]) return;
  const { [childId]: _ended, ...rest } = state.childWaits;
  state.childWaits = rest;
  updateCurrentDetails(ctx);
  await reportWaits(ctx);
}
