/**
 * Served tool results (docs/evals.md): a run with an `eval` record answers its tool calls from the
 * record's table instead of running the tools. A call the table does not answer runs live only
 * when its tool has no side effects and the record allows live reads; any other gets a result
 * saying it was not executed, and counts as drift. The model call runs no quick tools itself in
 * such a run, so every call comes through here. A record that carries the eval's decisions
 * decides the run's approvals as they are asked, through the one approval gate: the call is asked
 * for, then decided by the record.
 */
import { approvalDecided } from '../../policy/approval-rules';
import { decideByEval, emptyTally, evalTally, serveCall, steeringDue } from '../../policy/served-tools';
import type { RunFeature } from '../agent/feature';
import { answeredCall, emit } from '../agent/run-context';

export const servedTools: RunFeature = {
  name: 'served tools',
  view: ({ state }) => (state.eval ? { eval: evalTally(state.eval) } : {}),
  inlines: ({ state }) => state.config.eval === undefined,
  pinned({ state }, pin) {
    if (!state.config.eval) return;
    state.eval ??= emptyTally();
    state.eval.sideEffectTools = pin.tools.filter((t) => t.sideEffects).map((t) => t.name);
  },
  turnStart({ state }) {
    // Queued in the run itself, so none is lost to a run that would end before a client's signal came;
    // one at a time, so each takes a turn of its own.
    const followUps = state.config.eval?.followUps ?? [];
    const queued = state.eval?.followUpsQueued ?? 0;
    if (queued < followUps.length && state.followUps.length === 0) {
      state.eval ??= emptyTally();
      state.eval.followUpsQueued = queued + 1;
      state.followUps.push({ id: `eval-follow-up-${queued}`, text: followUps[queued] });
    }
    // Steering arrives as the turn it names starts, while its model call works, as a person's would.
    const spec = state.config.eval;
    const steered = state.eval?.steered ?? 0;
    for (const [i, { text }] of (spec ? steeringDue(spec, steered, state.turn + 1) : []).entries()) {
      state.eval ??= emptyTally();
      state.eval.steered = steered + i + 1;
      state.steering.push({ id: `eval-steer-${steered + i}`, text });
    }
  },
  waitsChanged(ctx) {
    for (const a of decideByEval(ctx.state.config.eval, ctx.state.approvals)) emit(ctx, approvalDecided(a, 'eval'));
    return Promise.resolve();
  },
  serves(ctx, { call, args, tool }) {
    const { state } = ctx;
    const spec = state.config.eval;
    // Sub-agents and the workflow's own tools are not tools the eval stands in for.
    if (!spec || tool.mode !== 'server') return undefined;
    state.eval ??= emptyTally();
    const answer = serveCall(spec, state.eval, {
      tool: tool.name,
      args,
      sideEffects: tool.sideEffects,
      turn: state.turn,
    });
    if (answer.type === 'live') return undefined;
    return answeredCall(ctx, call, answer.result.text, answer.result.isError);
  },
};
