/**
 * A feature of every run, at the seams the core calls it at (docs/design.md, Features): the run
 * scaffold and the turn call each feature of the one list (`workflows/features`) at fixed points,
 * as they call a kind's hooks, and never name one. A feature reads its own record of the run spec
 * and keeps its own fields of the state. Every seam is optional.
 *
 * What a throw does, for every seam: an `ApplicationFailure` fails the run without a result, any
 * other error fails the workflow task (Temporal retries it until a fixed build runs it). A feature
 * ends a run by returning what the seam says ends it, never by throwing.
 *
 * A seam with nothing to wait for answers at once, not with a promise: every promise a workflow
 * makes costs its worker a stack trace (docs/performance.md, Temporal's floor on this machine), and
 * the core awaits only an answer that is one.
 */
import type { ModelCallInput } from '../../contracts/agent-activities';
import type { MessageMeta, PinnedTool, ToolCallRequest } from '../../contracts/agent-run';
import type { MessageDraft } from '../../contracts/message-drafts';
import type { Cost, Usage } from '../../contracts/message-model';
import type { ModelRef } from '../../contracts/model-ref';
import type { AgentStopReason } from '../../contracts/run-status';
import type { AgentConfig } from '../../contracts/run-spec';
import type { ChildWaitsInput } from '../../contracts/sub-agents';
import type { ToolMode } from '../../contracts/tool-catalog';
import type { PinToolsOutput } from '../../contracts/tool-pin';
import type { ModelAnswer } from './model-answer';
import type { ModelResolver } from './model-resolver';
import type { RunContext } from './run-context';

/** What a seam answers: at once, or once it has waited. */
export type Awaitable<T> = T | Promise<T>;

/** How a kind's driver ends: the run finished, or continues as new. */
export type LoopOutcome = 'finished' | 'continue_as_new';

/** A call the feature lets go ahead (with what to settle after it), or refuses. */
export type CallClearance =
  | {
      ok: true;
      /** What the call takes along (a budget hold its later attempts reserve from). */
      input?: Pick<ModelCallInput, 'budget'>;
      /** Settles what the call cost (nothing: it failed); `budgetKey`: the attempt that answered. */
      settle?: (spent?: { usage: Usage; cost: Cost; budgetKey?: string }) => Promise<void>;
      /** Whether a failure of the call means it is cleared again and made again (a later attempt refused). */
      again?: (err: unknown) => boolean;
    }
  | {
      ok: false;
      /** How the run ends when no budget rule moves it to another model. */
      stopReason: AgentStopReason;
      message: string;
      /** A budget rule of the run may move it to a cheaper model and try again. */
      cheaper?: boolean;
    };

/** A model call about to be made. */
export interface CallAsk {
  model: ModelRef;
  /** The context it sends, estimated. */
  inputTokens: number;
  /** A call the run's call settings do not apply to (a summary): the model's own output limit holds. */
  own?: boolean;
  /** How long the run waits for what stands in its way (its rate-limit patience). */
  patienceMs: number;
}

/** A tool call the feature runs itself, for a tool mode it owns; `starting`: calls of its kind still to start. */
export interface FeatureCall {
  call: ToolCallRequest;
  args: Record<string, unknown>;
  tool: PinnedTool;
  starting: number;
}

/** A wait for people to decide (approvals, or client tools' results when `approvals` is false). */
export interface DecisionWait {
  approvals: boolean;
  tools: string[];
}

export interface RunFeature {
  /** For messages and tests. */
  readonly name: string;
  /** Registers the feature's handlers once, at the run's start (the run's own are registered). */
  register?(run: RunContext): void;
  /** Fields the feature adds to the `state` query's view. Runs in the query: a throw fails that query only. */
  view?(run: RunContext): object;
  /** Whether the run's tools must be pinned before its first model call (the feature needs them then). */
  pinsFirst?(spec: AgentConfig): boolean;
  /** What pinning the run's tools told the feature. */
  pinned?(run: RunContext, pin: PinToolsOutput): void;
  /** Wraps the run; the body's outcome is passed on. */
  aroundRun?(run: RunContext, body: () => Promise<LoopOutcome>): Promise<LoopOutcome>;
  /** Wraps one turn, with the role that takes it. */
  aroundTurn?<T>(run: RunContext, role: string | undefined, body: () => Promise<T>): Promise<T>;
  /** Wraps a wait for decisions; the body returns how the wait ended. */
  aroundWait?(run: RunContext, wait: DecisionWait, body: () => Promise<string>): Promise<string>;
  /** At the start of a turn that will be taken, before its model is chosen. */
  turnStart?(run: RunContext): Awaitable<void>;
  /** After the resolver chose the turn's model: may choose another; `failed` ends the run with `state.error`. */
  chooseModel?(run: RunContext, resolver: ModelResolver, step: string): Awaitable<'go' | 'failed'>;
  /** Before each model call (a turn's, or a summary's): may refuse it. */
  beforeCall?(run: RunContext, ask: CallAsk): Awaitable<CallClearance>;
  /** What the feature adds to a model call's input (the plan recited, a transformed context). */
  callInput?(run: RunContext, model: ModelRef): Awaitable<Partial<ModelCallInput>>;
  /** Whether this turn's model call may run quick tool calls itself (false: the feature looks at calls first). */
  inlines?(run: RunContext): boolean;
  /** After a turn's answer is recorded: `stop` or `failed` ends the run (its calls get "not run" results). */
  afterAnswer?(run: RunContext, answer: ModelAnswer, resolver: ModelResolver): Awaitable<'go' | 'stop' | 'failed'>;
  /** After tool results (or other messages of a turn) are written. */
  written?(run: RunContext, metas: readonly MessageMeta[]): Awaitable<void>;
  /** Answers a call about to run instead of its tool: its result, which the workflow writes; nothing: the call runs. */
  serves?(run: RunContext, call: FeatureCall): Awaitable<MessageDraft | undefined>;
  /** How many calls of a mode it runs may run together (calls of other modes run apart from them). */
  together?(spec: AgentConfig): Partial<Record<ToolMode, number>>;
  /** Runs calls of the tool modes it owns: their result, which the workflow writes. */
  runs?: Partial<Record<ToolMode, (run: RunContext, call: FeatureCall) => Promise<MessageDraft>>>;
  /** What waits for a person in runs this one holds open (its children), shown in its details with its own. */
  waitsHeld?(run: RunContext): Pick<ChildWaitsInput, 'approvals' | 'clientTools'>;
  /** What waits for a person in the run changed (an approval asked or decided, a client result in). */
  waitsChanged?(run: RunContext): Promise<void>;
  /** As the run ends, before its `done` event (`reason`: its stop reason, as its kind's result names it). */
  ending?(run: RunContext, reason: string): Awaitable<void>;
  /** The run has ended (its result is built next); the workflow's metrics are recorded here. */
  ended?(run: RunContext): void;
}
