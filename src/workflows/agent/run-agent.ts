/**
 * The one run scaffold of every agent kind (docs/design.md, Agent kinds): the config checked,
 * state fresh or carried, the watchers' stream, the activities, the handlers (registered once),
 * search attributes, cancellation as a clean stop, handlers drained, continue-as-new carrying the
 * kind's own state, and the result. A kind brings only its {@link AgentKind} hooks.
 */
import { AGENT_FAILURE } from '../../contracts/failure-types';
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  workflowInfo,
} from '@temporalio/workflow';
import { runSpecProblems } from '../../policy/run-spec-problems';
import { CARRIED_INPUT_VERSION, type AgentWorkflowInput } from '../../contracts/agent-workflows';
import { carryState, initialState, restoreState, resultOf } from '../../policy/agent-state';
import type { AgentResult } from '../../contracts/agent-run';
import { registerHandlers } from './handlers';
import { createAgentIO } from './agent-io';
import { RunEnded, type LoopOutcome } from './run-steps';
import { RUN_FEATURES } from '../features';
import { emit, newRunContext, publishSearchAttributes, type RunContext } from './run-context';
import { openRunStream } from './watch-stream';
import { runPriority } from '../../policy/tenancy';

/**
 * An agent kind: what it adds to a run. `C` is the kind's context, built once per run from the
 * run's; a kind without state of its own uses the run context itself.
 *
 * What a throw does, for every hook unless it says otherwise: an `ApplicationFailure` fails the
 * workflow run with it, without a result; any other error fails the workflow task, which Temporal
 * retries until a fixed build runs it (the run looks stuck: a bug in the kind). An expected end is
 * not thrown: the kind finishes the run (`finish`, `fail`) and returns its outcome.
 */
export interface AgentKind<I extends AgentWorkflowInput, C, R = AgentResult> {
  /**
   * Problems with the kind's own input, one readable line each (the config is checked for every
   * kind). Any line fails the run at once as an invalid config (`AgentConfigError`); none starts it.
   */
  problems?: (input: I) => string[];
  /** The kind's context: its own state, fresh or from the carried input, and its activities. */
  context: (input: I, run: RunContext) => C;
  /** Registers the kind's own handlers; the run's signals, updates and `state` query already are. */
  register?: (c: C) => void;
  /**
   * Fields the kind adds to the `state` query's view (nothing: none). It runs in the query, not in
   * the run: a throw fails that query only, and the run goes on.
   */
  view?: (c: C) => object;
  /** The phase of the first search-attribute upsert. */
  startPhase: (c: C) => string;
  /** Runs after the first upsert, before the first turn (e.g. announces the kind's first phase); returns nothing. */
  begin?: (c: C, input: I) => void;
  /**
   * Takes turns until the run ends (`finished`) or continues as new (`continue_as_new`). A step that
   * ended the run before any turn throws `RunEnded`, which counts as `finished`.
   */
  run: (c: C) => Promise<LoopOutcome>;
  /**
   * Called when follow-ups (and steering that came too late to redirect anything) have entered the
   * conversation after the run would otherwise have ended (`injectFollowUps`): their texts, in the
   * order they came. The kind takes them as its next request (pev plans for them); it returns
   * nothing. Without it the messages are in the conversation and the next turn answers them.
   */
  followUps?: (c: C, texts: readonly string[]) => void;
  /**
   * The kind's own name for the end of a run that completed (pev: `max_cycles`), which its result and the
   * features' `ending` seam give in place of `completed`; nothing: `completed`.
   */
  endReason?: (c: C) => string | undefined;
  /**
   * What continue-as-new carries besides the config, the agent state and the stream. Nothing: the
   * next run starts the kind's own state afresh (`context` sees no carried state).
   */
  carry?: (c: C, input: I) => Partial<I>;
  /** The run's result, from the agent result every kind has. */
  result: (c: C, base: AgentResult) => R;
}

/** Waits until update and signal handlers have finished; a cancelled run still returns its final state. */
const drainHandlers = (): Promise<void> => CancellationScope.nonCancellable(() => condition(allHandlersFinished));

/**
 * The failure a run that ended in error closes with: typed, non-retryable, its message the run's
 * error, and its first detail the kind's result (`result`, built on `base`), so every status filter
 * counts it as failed and a client still reads the whole result.
 */
function failedRun(base: AgentResult, result: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    message: base.error?.message ?? 'the run failed',
    type: AGENT_FAILURE.runFailed,
    nonRetryable: true,
    details: [result],
  });
}

/** A step that ended the run itself (see {@link RunEnded}) has already recorded how. */
const endedEarly = (err: unknown): LoopOutcome => {
  if (err instanceof RunEnded) return 'finished';
  throw err;
};

/** Runs an agent of `kind`: the workflow function of every kind is `runAgent(input, itsKind)`. */
export async function runAgent<I extends AgentWorkflowInput, C, R>(input: I, kind: AgentKind<I, C, R>): Promise<R> {
  if (input.carry && input.carriedVersion !== CARRIED_INPUT_VERSION)
    throw ApplicationFailure.nonRetryable(
      `This run was carried over by continue-as-new with input version ${input.carriedVersion ?? 'none'}; ` +
        `this workflow code reads version ${CARRIED_INPUT_VERSION}. Run it on workers of the code that carried it.`,
      AGENT_FAILURE.carriedVersion,
    );
  const problems = [...runSpecProblems(input.config), ...(kind.problems?.(input) ?? [])];
  if (problems.length > 0)
    throw ApplicationFailure.nonRetryable(`Invalid agent config: ${problems.join('; ')}`, AGENT_FAILURE.config);
  const info = workflowInfo();
  const state = input.carry ? restoreState(input.config, input.carry) : initialState(input.config, info.workflowId);
  const stream = openRunStream(input.streamState);
  const { fleet } = input.config;
  const io = createAgentIO({
    ...(fleet?.taskQueue ? { taskQueue: fleet.taskQueue } : {}),
    priority: runPriority(fleet),
  });
  const run = newRunContext(state, io, stream);
  const c = kind.context(input, run);
  const { view, followUps, endReason } = kind;
  if (followUps) run.followUps = (texts) => followUps(c, texts);
  if (endReason) run.endReason = () => endReason(c);
  run.waitsHeld = () => RUN_FEATURES.flatMap((f) => (f.waitsHeld ? [f.waitsHeld(run)] : []));
  registerHandlers(run, view ? () => view(c) : undefined);
  kind.register?.(c);
  publishSearchAttributes(run, kind.startPhase(c));
  kind.begin?.(c, input);

  // Cancellation ends the run like a stop: the current activity finishes, open calls get results.
  CancellationScope.current().cancelRequested.catch(() => {
    state.stopRequested ??= { reason: 'cancelled' };
  });
  const driven = RUN_FEATURES.reduceRight<() => Promise<LoopOutcome>>(
    (inner, feature) => (feature.aroundRun ? () => feature.aroundRun!(run, inner) : inner),
    () => kind.run(c).catch(endedEarly),
  );
  const outcome = await CancellationScope.nonCancellable(driven);

  if (outcome === 'continue_as_new') emit(run, { type: 'continued_as_new', runs: state.runs });
  // Watchers' polls wait for new entries: wake them, or allHandlersFinished would never hold.
  stream.detach();
  // With no handler running there is nothing to wait for, and no promise to make.
  if (!allHandlersFinished()) await drainHandlers();
  if (outcome === 'continue_as_new') {
    const next = {
      config: input.config,
      carry: carryState(state),
      carriedVersion: CARRIED_INPUT_VERSION,
      streamState: stream.carry(),
      ...kind.carry?.(c, input),
    } as I;
    return continueAsNew<(next: I) => Promise<R>>(next);
  }
  for (const feature of RUN_FEATURES) feature.ended?.(run);
  const base = resultOf(info.workflowId, state);
  const result = kind.result(c, base);
  if (base.status === 'failed') throw failedRun(base, result);
  return result;
}
