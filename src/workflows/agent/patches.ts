/**
 * The patch ids of the agent scaffold (docs/design.md, Replay and patch policy). Each gates a
 * change of workflow commands; `patched` records its marker the first time a run takes the new path.
 */
import { patched } from '@temporalio/workflow';

/**
 * A lean turn: search attributes upserted only when a value worth filtering on changes, and the
 * cheap steps (quick read-only tool calls, messages the workflow writes) as local activities.
 */
export const LEAN_TURN_PATCH = 'lean-turn';

/**
 * Compaction that cannot fail the run or repeat forever: a failed summary backs off, the context
 * is fitted without a model call meanwhile, and a request known to be over the window is not sent.
 */
export const CONTEXT_FIT_PATCH = 'context-fit';

/**
 * Quick tool calls run by the model call itself (`ModelCallInput.inlineTools`): a turn of such
 * calls is one activity and one workflow task, with no local activity between the answer and the
 * next call.
 */
export const INLINE_TOOLS_PATCH = 'tools-in-model-call';

/**
 * Tools pinned by a local activity in the run's first workflow task while another writes the task:
 * the first workflow task schedules the first model call, with no activity and no other workflow
 * task before it.
 */
export const PIN_IN_FIRST_TASK_PATCH = 'tools-pinned-in-first-task';

export const leanTurn = (): boolean => patched(LEAN_TURN_PATCH);
export const contextFit = (): boolean => patched(CONTEXT_FIT_PATCH);
export const inlineTools = (): boolean => patched(INLINE_TOOLS_PATCH);
export const pinInFirstTask = (): boolean => patched(PIN_IN_FIRST_TASK_PATCH);
