/**
 * A run's plan (docs/plans.md): the todo list recited at the end of the context each turn. One
 * reading of a plan given from outside, and one update rule shared by the client's per-item
 * update and the model's own `update_plan` tool.
 */
import type { PlanItem } from '../contracts/run-spec';
import type { PlanUpdate } from '../contracts/agent-workflows';
import { isPlainObject } from '../common/type-helpers';

/** Most items a plan holds. */
export const MAX_PLAN_ITEMS = 100;
/** Longest item title. */
export const MAX_PLAN_TITLE_CHARS = 500;

/** The name of the model's tool that ticks its own todos; offered to runs that start with a plan. */
export const PLAN_TOOL = 'update_plan';

/** The tool's description and parameters, as the model sees them. */
export const PLAN_TOOL_SPEC = {
  name: PLAN_TOOL,
  description:
    'Update your plan (the todo list shown at the end of the conversation): mark items done as you ' +
    'finish them, reopen one that needs more work, or add items. Give items by their id.',
  parameters: {
    type: 'object',
    properties: {
      done: { type: 'array', items: { type: 'string' }, description: 'ids of items now done' },
      open: { type: 'array', items: { type: 'string' }, description: 'ids of items to reopen' },
      add: { type: 'array', items: { type: 'string' }, description: 'titles of new items' },
    },
    additionalProperties: false,
  },
} as const;

/**
 * A plan given from outside (start options, `setPlan`), with every item given an id (its position
 * when it has none) and `done` a boolean; or its problems, one line each.
 */
export function planOf(value: unknown): { plan: PlanItem[] } | { problems: string[] } {
  if (!Array.isArray(value)) return { problems: ['a plan is a list of items { id?, title, done? }'] };
  if (value.length > MAX_PLAN_ITEMS) return { problems: [`a plan holds at most ${MAX_PLAN_ITEMS} items`] };
  const problems: string[] = [];
  const plan = value.map((item, i): PlanItem => {
    const title = isPlainObject(item) && typeof item.title === 'string' ? item.title.trim() : '';
    if (!title) problems.push(`plan item ${i + 1} needs a title`);
    else if (title.length > MAX_PLAN_TITLE_CHARS)
      problems.push(`plan item ${i + 1}: a title has at most ${MAX_PLAN_TITLE_CHARS} characters`);
    const id =
      isPlainObject(item) && (typeof item.id === 'string' || typeof item.id === 'number') ? String(item.id) : '';
    return { id: id || String(i + 1), title, done: isPlainObject(item) && item.done === true };
  });
  const ids = plan.map((p) => p.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) problems.push(`the plan names the item id "${twice}" twice`);
  return problems.length > 0 ? { problems } : { plan };
}

/** Why `update` is not a plan update; undefined when it is one. */
function updateProblem(update: unknown): string | undefined {
  if (!isPlainObject(update)) return 'an update is an object { done?, open?, add? }';
  const unknown = Object.keys(update).filter((k) => k !== 'done' && k !== 'open' && k !== 'add');
  if (unknown.length > 0) return `an update has only done, open and add, not ${unknown.join(', ')}`;
  for (const key of ['done', 'open', 'add'] as const) {
    const list = update[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((v) => typeof v === 'string')))
      return `${key} must be a list of texts`;
  }
  const { done = [], open = [], add = [] } = update as PlanUpdate;
  if (done.length + open.length + add.length === 0) return 'the update changes nothing: give done, open or add';
  return undefined;
}

/**
 * `plan` after `update`: items marked done or reopened by id, new items appended (ids after the
 * largest number in use). Unknown ids and a plan grown past its limit are problems, and then
 * nothing changes.
 */
export function updatePlan(
  plan: readonly PlanItem[],
  update: unknown,
): { plan: PlanItem[]; problems?: undefined } | { problems: string[] } {
  const problem = updateProblem(update);
  if (problem) return { problems: [problem] };
  const { done = [], open = [], add = [] } = update as PlanUpdate;
  const known = new Set(plan.map((p) => p.id));
  const unknown = [...done, ...open].filter((id) => !known.has(id));
  if (unknown.length > 0)
    return { problems: [`no plan item ${unknown.map((id) => `"${id}"`).join(', ')}; ids: ${[...known].join(', ')}`] };
  const titles = add.map((t) => t.trim()).filter(Boolean);
  if (plan.length + titles.length > MAX_PLAN_ITEMS)
    return { problems: [`a plan holds at most ${MAX_PLAN_ITEMS} items`] };
  if (titles.some((t) => t.length > MAX_PLAN_TITLE_CHARS))
    return { problems: [`a title has at most ${MAX_PLAN_TITLE_CHARS} characters`] };
  let next = Math.max(0, ...plan.map((p) => Number(p.id)).filter(Number.isInteger)) + 1;
  const updated = plan.map((p) => ({
    ...p,
    done: done.includes(p.id) ? true : open.includes(p.id) ? false : p.done,
  }));
  for (const title of titles) {
    while (known.has(String(next))) next++;
    updated.push({ id: String(next), title, done: false });
    known.add(String(next++));
  }
  return { plan: updated };
}

/** The plan as the model's tool answers it: each item with its id and whether it is done. */
export function planText(plan: readonly PlanItem[]): string {
  if (plan.length === 0) return 'The plan is empty.';
  return ['Plan:', ...plan.map((p) => `[${p.done ? 'x' : ' '}] ${p.id}: ${p.title}`)].join('\n');
}
