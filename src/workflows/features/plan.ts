/**
 * A run's plan (docs/plans.md): the todos recited at the end of the context of every model call, set
 * or changed by a client (`setPlan`, `updatePlan`) and by the model's own plan tool (`update_plan`),
 * which the workflow answers from its state in the tool phase like any call (its `tool_start` and
 * `tool_execution` events, stop and steering between calls).
 */
import { setHandler } from '@temporalio/workflow';
import { setPlanSignal, updatePlanSignal } from '../../contracts/agent-workflows';
import type { MessageDraft } from '../../contracts/message-drafts';
import { planOf, planText, updatePlan } from '../../policy/plan';
import { planRecitation } from '../../policy/provider-view';
import type { FeatureCall, RunFeature } from '../agent/feature';
import { answeredCall, type RunContext } from '../agent/run-context';

/** Applies one call's update to the run's plan; its result is the plan as it is now, or why nothing changed. */
function planToolCall(ctx: RunContext, { call, args }: FeatureCall): Promise<MessageDraft> {
  const { state } = ctx;
  const updated = updatePlan(state.plan ?? [], args);
  if (!updated.problems) state.plan = updated.plan;
  const isError = updated.problems !== undefined;
  const text = isError ? `The plan was not changed: ${updated.problems.join('; ')}.` : planText(updated.plan);
  return Promise.resolve(answeredCall(ctx, call, text, isError));
}

export const plan: RunFeature = {
  name: 'plan',
  register({ state }) {
    // A plan or an update the client refused before sending can only come from a hand-sent signal: ignored.
    setHandler(setPlanSignal, (items) => {
      const read = planOf(items);
      if ('plan' in read) state.plan = read.plan;
    });
    setHandler(updatePlanSignal, (update) => {
      const updated = updatePlan(state.plan ?? [], update);
      if (!updated.problems) state.plan = updated.plan;
    });
  },
  view: ({ state }) => (state.plan ? { plan: state.plan } : {}),
  callInput: ({ state }) => {
    const recitation = planRecitation(state.plan);
    return recitation ? { recitation } : {};
  },
  runs: { workflow: planToolCall },
};
