/**
 * A todo's planned tool call (docs/plans.md, Plans that name their calls): when the planner named
 * the one call that does a todo, the executor makes it in the todo's first round without a model
 * turn. It goes through the run's one tool path (approval, validation on the worker, dedupe); a
 * tool the run lacks is left to the model.
 */
import type { PinnedTool, ToolCallRequest } from '../../contracts/agent-run';
import type { PevTodo } from '../../contracts/pev-progress';
import { isPlainObject } from '../../common/type-helpers';

/** The id of a planned call written at log position `seq`: unique in the conversation, valid for every provider. */
export const plannedCallId = (seq: number): string => `planned-${seq}`;

/**
 * The call to make for `todo` in executor round `round` (1-based), written at `seq`; undefined
 * when the model decides: a later round, no call in the plan, a tool the run has not pinned, or
 * parameters that are not an object.
 */
export function plannedCall(
  todo: PevTodo,
  round: number,
  tools: readonly PinnedTool[],
  seq: number,
): ToolCallRequest | undefined {
  const call = todo.call;
  if (round !== 1 || !call || !isPlainObject(call.parameters)) return undefined;
  if (!tools.some((t) => t.name === call.tool)) return undefined;
  return { id: plannedCallId(seq), name: call.tool, arguments: call.parameters };
}
