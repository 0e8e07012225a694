/**
 * What a kind sets for one turn of `agentTurn` (docs/design.md, The turn loop), and what a turn
 * returns.
 */
import type { ToolCallRequest } from '../../contracts/agent-run';
import type { ModelCallOverrides } from './model-step';
import type { ModelResolver } from './model-resolver';
import type { LoopOutcome } from './run-steps';

/** Points of a turn where search attributes may be published. */
export type TurnPoint = 'model' | 'tools' | 'tools_done';

/**
 * What a kind sets for one turn. Every hook is optional; without any, the turn is a ReAct turn.
 * A hook that throws ends the turn there, as a throw from the kind's own code does (`AgentKind`):
 * an `ApplicationFailure` fails the run, any other error fails the workflow task, which Temporal
 * retries. A hook that returns nothing leaves the turn as it would be without the hook.
 */
export interface TurnHooks {
  /**
   * Checked after stop and limits: true continues as new instead of taking this turn (the turn is
   * `end` with outcome `continue_as_new`); false or nothing takes it.
   */
  continueAsNew?: () => boolean | void;
  /** Where this turn's model comes from (default: the run's resolver). */
  resolver?: ModelResolver;
  /** What the timeline and the current details call this turn; nothing: `turn N`. */
  step?: () => string | void;
  /**
   * What this turn's call sets over the run's settings (a role's prompt by hash, structured output,
   * tool choice, recitation); nothing, or a field left out: the run's.
   */
  call?: () => ModelCallOverrides | void;
  /** The phase published at `point`; nothing: none is published there. Default: `model` and `tools`, as named. */
  phaseAt?: (point: TurnPoint) => string | undefined;
  /** When set, tool calls are not run: each gets this text as its result and the turn is `tools_refused`. */
  refuseTools?: string;
  /**
   * Before the tool phase, with the answer's calls: answers some of them without running them (it
   * writes their results into the conversation itself) and returns the calls still to run, which
   * go through the tool phase; nothing runs them all. Not called when the model call ran the calls
   * itself (a kind with this hook never has its calls run that way).
   */
  beforeTools?: (calls: readonly ToolCallRequest[]) => Promise<ToolCallRequest[] | void>;
  /** After the tool phase, with the calls that ran (their results are in the conversation); returns nothing. */
  afterTools?: (ran: readonly ToolCallRequest[]) => void;
  /**
   * Calls this turn makes without asking the model (a plan that names its tool calls): they are
   * written as the turn's answer and go through the tool phase; no model is called and the turn
   * counter does not move. Nothing (or none): a model turn. Not taken when steering came in at the
   * turn's start: the model reads it first.
   */
  planned?: () => ToolCallRequest[] | void;
  /** The role that takes this turn (a pev role): named in the turn's span and kept with its messages. */
  role?: string;
}

export type TurnResult =
  | { type: 'answer'; text: string }
  /** Tools were called; their results are in the conversation. */
  | { type: 'tools' }
  /** Tools were called but refused (`refuseTools`); they got "not run" results. */
  | { type: 'tools_refused'; tools: string[] }
  /** The run ended (stop, limit, error, hook) or continues as new (`continue_as_new`). */
  | { type: 'end'; outcome: LoopOutcome };

export const end = (outcome: LoopOutcome): TurnResult => ({ type: 'end', outcome });

/**
 * A turn's phase when the kind sets none: one phase, `running`, for the whole turn (the status and
 * the model say the rest).
 */
export const defaultPhase = (): string => 'running';
