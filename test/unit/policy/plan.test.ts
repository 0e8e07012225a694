import { MAX_PLAN_ITEMS, planOf, planText, updatePlan } from '../../../src/policy/plan';
import { ASK_USER, questionOf, withAskUser } from '../../../src/policy/ask-user';
import { runSpec } from '../../kit/run-spec';
import { runSpecProblems } from '../../../src/policy/run-spec-problems';
import { currentDetails } from '../../../src/policy/current-details';

const plan = [
  { id: '1', title: 'search', done: false },
  { id: 'b', title: 'write', done: true },
];

describe('a run plan', () => {
  it('items given without an id get their position; done is a boolean', () => {
    expect(planOf([{ title: 'a' }, { id: 7, title: ' b ', done: true }])).toEqual({
      plan: [
        { id: '1', title: 'a', done: false },
        { id: '7', title: 'b', done: true },
      ],
    });
  });

  it('a plan without titles, with an id twice, or too long is refused, naming why', () => {
    expect(
      planOf([
        { id: 'a', title: '' },
        { id: 'a', title: 'x' },
      ]),
    ).toEqual({
      problems: ['plan item 1 needs a title', 'the plan names the item id "a" twice'],
    });
    expect(planOf('todo')).toEqual({ problems: ['a plan is a list of items { id?, title, done? }'] });
    expect(planOf(Array.from({ length: MAX_PLAN_ITEMS + 1 }, () => ({ title: 'x' })))).toEqual({
      problems: [`a plan holds at most ${MAX_PLAN_ITEMS} items`],
    });
  });

  it('an update marks items done or open by id and appends new ones after the largest numeric id', () => {
    expect(updatePlan(plan, { done: ['1'], open: ['b'], add: ['check', ' '] })).toEqual({
      plan: [
        { id: '1', title: 'search', done: true },
        { id: 'b', title: 'write', done: false },
        { id: '2', title: 'check', done: false },
      ],
    });
  });

  it('an update naming an unknown item, or changing nothing, changes nothing and says why', () => {
    expect(updatePlan(plan, { done: ['9'] })).toEqual({ problems: ['no plan item "9"; ids: 1, b'] });
    expect(updatePlan(plan, {})).toEqual({ problems: ['the update changes nothing: give done, open or add'] });
    expect(updatePlan(plan, { done: '1' })).toEqual({ problems: ['done must be a list of texts'] });
    expect(updatePlan(plan, { remove: ['1'] })).toEqual({
      problems: ['an update has only done, open and add, not remove'],
    });
  });

  it('the tool answers the plan with each id', () => {
    expect(planText(plan)).toBe('Plan:\n[ ] 1: search\n[x] b: write');
  });

  it('a start with a bad plan is refused before it runs', () => {
    const config = runSpec({
      task: 't',
      model: 'anthropic/claude-sonnet-4-6',
      plan: [{ id: 'x', title: '' }],
    });
    expect(runSpecProblems(config)).toContain('plan item 1 needs a title');
  });
});

describe('asking the user', () => {
  it('a run that opts in declares the ask_user client tool once', () => {
    const config = runSpec({ tools: { askUser: true }, task: 't', model: 'anthropic/claude-sonnet-4-6' });
    expect(config.tools.clientTools?.map((t) => t.name)).toEqual([ASK_USER]);
    expect(withAskUser(config.tools.clientTools)).toHaveLength(1);
    expect(runSpecProblems(config)).toEqual([]);
  });

  it('the current details show the question and the command that answers it', () => {
    const details = currentDetails({
      id: 'run-1',
      kind: 'react',
      step: 'turn 2',
      phase: 'awaiting_client_tools',
      turn: 2,
      model: 'anthropic/claude-sonnet-4-6',
      running: [],
      approvals: [],
      clientTools: [{ toolCallId: 'c1', tool: ASK_USER, args: { question: 'Go on?', options: ['yes', 'no'] } }],
    });
    expect(details).toContain("**Waiting for the user's answer** (call `c1`) to:");
    expect(details).toContain('Go on? (yes / no)');
    expect(details).toContain("`durable-agents answer run-1 '…' --call c1`");
    expect(questionOf({ question: 'Why?' })).toBe('Why?');
  });
});
