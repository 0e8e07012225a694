/** Signal, update and query handlers of an agent run; each delegates to a pure function. */
import { setHandler } from '@temporalio/workflow';
import { applyDecision, decisionRefusal } from '../../policy/approval-rules';
import {
  addNoteSignal,
  decideApprovalUpdate,
  followUpSignal,
  setPlanSignal,
  stateQuery,
  steerSignal,
  stopSignal,
  submitToolResultUpdate,
  switchModelSignal,
  updatePlanSignal,
  type ToolResultInput,
} from '../../contracts/agent-workflows';
import { tenantBudgetSignal } from '../../contracts/tenant-budget';
import { enqueueOnce, firstDelivery } from '../../policy/queues';
import { stateView } from '../../policy/agent-state';
import { planOf, updatePlan } from '../../policy/plan';
import { modelNameProblem, modelRefOf } from '../../policy/model-ref';
import { emit, type RunContext } from './run-context';
import { registerChildWaits, reportWaits } from './child-waits';
import { registerBudgetSignals } from './budget-wait';

/** Temporal refuses updates past 2,000 per run; leave room and ask the caller to retry after continue-as-new. */
const MAX_UPDATES_PER_RUN = 1_900;
/** Largest client tool result accepted by update (bigger payloads belong in the content store). */
const MAX_CLIENT_RESULT_CHARS = 256_000;

const running = (ctx: RunContext): boolean => ctx.state.stopReason === undefined;

function updateBudgetRefusal(ctx: RunContext): string | undefined {
  if (!running(ctx)) return `the run has ended (${ctx.state.stopReason})`;
  if (ctx.state.updatesHandled >= MAX_UPDATES_PER_RUN)
    return 'this run has taken its share of updates; retry in a moment, after it continues as new';
  return undefined;
}

function toolResultRefusal(ctx: RunContext, input: ToolResultInput): string | undefined {
  if (!input || typeof input.toolCallId !== 'string') return 'a tool result needs a toolCallId';
  if (typeof input.content !== 'string') return 'a tool result needs string content';
  if (input.content.length > MAX_CLIENT_RESULT_CHARS)
    return `a tool result may hold at most ${MAX_CLIENT_RESULT_CHARS} characters`;
  const request = ctx.state.clientTools.find((c) => c.toolCallId === input.toolCallId);
  if (!request) return `no client tool call ${input.toolCallId} is waiting for a result`;
  if (request.result) return `tool call ${input.toolCallId} already has a result`;
  return undefined;
}

const refuse = (reason: string | undefined): void => {
  if (reason !== undefined) throw new Error(reason);
};

/**
 * Registers the handlers every run has, once. `extendView` adds a kind's own fields to the
 * `state` query's view.
 */
export function registerHandlers(ctx: RunContext, extendView?: () => object): void {
  const { state } = ctx;
  setHandler(steerSignal, (msg) => {
    if (running(ctx)) enqueueOnce(state, state.steering, msg);
  });
  setHandler(followUpSignal, (msg) => {
    if (running(ctx)) enqueueOnce(state, state.followUps, msg);
  });
  setHandler(addNoteSignal, (note) => {
    const kind = note?.kind ?? 'context_note';
    if (!running(ctx) || (kind !== 'context_note' && kind !== 'system_event') || !firstDelivery(state, note)) return;
    (state.notes ??= []).push({ id: note.id, text: note.text, kind });
  });
  setHandler(stopSignal, (input) => {
    const reason = input?.reason === 'cancelled' ? 'cancelled' : 'stopped';
    state.stopRequested ??= { reason, ...(input?.note ? { note: input.note } : {}) };
  });
  setHandler(switchModelSignal, (input) => {
    // A signal sent by hand (`temporal workflow signal`) may name a spec string; one naming no model is ignored.
    if (input && modelNameProblem(input.model) === undefined)
      state.operatorModel = { model: modelRefOf(input.model), note: input.note };
  });
  setHandler(tenantBudgetSignal, () => {
    if (running(ctx) && state.config.tenant !== undefined) state.tenantBudget ??= { granted: 0 };
  });
  registerBudgetSignals(ctx);
  // A plan or an update the client refused before sending can only come from a hand-sent signal: ignored.
  setHandler(setPlanSignal, (plan) => {
    const read = planOf(plan);
    if ('plan' in read) state.plan = read.plan;
  });
  setHandler(updatePlanSignal, (update) => {
    const updated = updatePlan(state.plan ?? [], update);
    if (!updated.problems) state.plan = updated.plan;
  });
  setHandler(
    decideApprovalUpdate,
    async (input) => {
      state.updatesHandled += 1;
      const record = applyDecision(state.approvals, input);
      emit(ctx, {
        type: 'approval_decided',
        toolCallId: record.toolCallId,
        tool: record.tool,
        decision: record.state === 'approved' ? 'approved' : 'rejected',
        by: 'user',
        edited: record.editedArgs !== undefined,
        ...(record.reason ? { reason: record.reason } : {}),
      });
      await reportWaits(ctx);
      return { toolCallId: record.toolCallId, tool: record.tool, state: record.state };
    },
    { validator: (input) => refuse(updateBudgetRefusal(ctx) ?? decisionRefusal(state.approvals, input)) },
  );
  setHandler(
    submitToolResultUpdate,
    async (input) => {
      state.updatesHandled += 1;
      const request = state.clientTools.find((c) => c.toolCallId === input.toolCallId);
      if (request) request.result = { content: input.content, isError: input.isError === true };
      await reportWaits(ctx);
      return { toolCallId: input.toolCallId, accepted: true as const };
    },
    { validator: (input) => refuse(updateBudgetRefusal(ctx) ?? toolResultRefusal(ctx, input)) },
  );
  setHandler(stateQuery, () => ({ ...stateView(ctx.workflowId, state), ...extendView?.() }));
  registerChildWaits(ctx);
}
