/** Signal, update and query handlers of an agent run; each delegates to a pure function. */
import { setHandler } from '@temporalio/workflow';
import { applyDecision, approvalDecided, decisionRefusal } from '../../policy/approval-rules';
import {
  decideApprovalUpdate,
  followUpSignal,
  stateQuery,
  steerSignal,
  stopSignal,
  submitToolResultUpdate,
  switchModelSignal,
  type ToolResultInput,
} from '../../contracts/agent-workflows';
import { enqueueOnce } from '../../policy/queues';
import { stateView } from '../../policy/agent-state';
import { modelNameProblem, modelRefOf } from '../../policy/model-ref';
import { RUN_FEATURES } from '../features';
import { emit, type RunContext } from './run-context';
import { waitsChanged } from './tool-plan';

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

/** An update's validator: refuses it with `reason`, when there is one. */
export const refuse = (reason: string | undefined): void => {
  if (reason !== undefined) throw new Error(reason);
};

/**
 * Registers the handlers every run has, and each feature's, once. The features and `extendView`
 * (a kind's) add their own fields to the `state` query's view.
 */
export function registerHandlers(ctx: RunContext, extendView?: () => object): void {
  const { state } = ctx;
  setHandler(steerSignal, (msg) => {
    if (running(ctx)) enqueueOnce(state, state.steering, msg);
  });
  setHandler(followUpSignal, (msg) => {
    if (running(ctx)) enqueueOnce(state, state.followUps, msg);
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
  setHandler(
    decideApprovalUpdate,
    async (input) => {
      state.updatesHandled += 1;
      const record = applyDecision(state.approvals, input);
      emit(ctx, approvalDecided(record, 'user'));
      await waitsChanged(ctx);
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
      await waitsChanged(ctx);
      return { toolCallId: input.toolCallId, accepted: true as const };
    },
    { validator: (input) => refuse(updateBudgetRefusal(ctx) ?? toolResultRefusal(ctx, input)) },
  );
  setHandler(stateQuery, () =>
    Object.assign(stateView(ctx.workflowId, state), ...RUN_FEATURES.map((f) => f.view?.(ctx) ?? {}), extendView?.()),
  );
  for (const feature of RUN_FEATURES) feature.register?.(ctx);
}
