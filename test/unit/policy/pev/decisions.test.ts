import { DEFAULT_PEV_LIMITS, pevOptionProblems, resolvePevOptions } from '../../../../src/policy/pev/pev-options';
import {
  afterPlannerRound,
  afterVerifier,
  applyPlan,
  executorOutcome,
  nextOpenTodo,
  readyTodos,
  reportedTodos,
} from '../../../../src/policy/pev/decisions';
import { plannedCall } from '../../../../src/policy/pev/planned-call';
import { canonicalJson } from '../../../../src/common/canonical-json';
import { plannerRole, responseFormatOf, type PevRoleDefinition } from '../../../../src/policy/pev/roles';
import { findReusable, ledgerAfterCalls, reusableInAnswer, reuseNote } from '../../../../src/policy/pev/tool-dedupe';
import type { PinnedTool } from '../../../../src/contracts/agent-run';
import { parseRoleAnswer } from '../../../../src/policy/pev/parse-answer';
import {
  todoChildTask,
  todoExecutorPrompt,
  todoRecitation,
  systemPromptOf,
} from '../../../../src/policy/pev/prompt-template';
import {
  type ExecutorResponse,
  type PlannerResponse,
  type VerifierResponse,
} from '../../../../src/policy/pev/answer-schemas';
import { type PevTodo } from '../../../../src/contracts/pev-progress';
import { z } from 'zod';

const limits = DEFAULT_PEV_LIMITS;
const todo = (id: string, priority: number, status: PevTodo['status'] = 'pending'): PevTodo => ({
  id,
  description: `do ${id}`,
  priority,
  status,
  rounds: 0,
  cycle: 1,
});
const executor = (fields: Partial<ExecutorResponse>): ExecutorResponse => ({
  type: 'component',
  component: 'executor-response',
  summary: 's',
  todos: [],
  ...fields,
});

describe('planner rounds', () => {
  const plan = (needsMorePlanning: boolean): PlannerResponse => ({
    type: 'component',
    component: 'planner-response',
    summary: '',
    needsMorePlanning,
    todos: [],
  });

  test('a complete plan goes to execution', () => {
    expect(afterPlannerRound(plan(false), 1, limits)).toEqual({ next: 'execute', reason: 'planned' });
  });

  test('needsMorePlanning asks for another round until the round limit', () => {
    expect(afterPlannerRound(plan(true), 2, limits)).toEqual({ next: 'plan_again' });
    expect(afterPlannerRound(plan(true), 3, limits)).toEqual({ next: 'execute', reason: 'max_planning_rounds' });
  });
});

describe('executor flow control', () => {
  test.each<[string, Partial<ExecutorResponse>, ReturnType<typeof executorOutcome>]>([
    [
      'taskCompleted true wins over everything',
      { taskCompleted: true, nextAction: 'continue' },
      { done: true, status: 'completed', reason: 'task_completed' },
    ],
    [
      'taskCompleted false keeps going even with nextAction complete',
      { taskCompleted: false, nextAction: 'complete' },
      { done: false },
    ],
    [
      'taskCompleted false with skip skips',
      { taskCompleted: false, nextAction: 'skip' },
      { done: true, status: 'skipped', reason: 'next_action' },
    ],
    [
      'taskCompleted false with shouldContinue false gives up',
      { taskCompleted: false, shouldContinue: false },
      { done: true, status: 'failed', reason: 'gave_up' },
    ],
    [
      'nextAction complete without taskCompleted',
      { nextAction: 'complete' },
      { done: true, status: 'completed', reason: 'next_action' },
    ],
    [
      'nextAction retry continues and hides the todo status',
      { nextAction: 'retry', todos: [{ ...todo('t', 1, 'completed') }] },
      { done: false },
    ],
    [
      'the todo status decides last',
      { todos: [{ ...todo('t', 1, 'completed') }] },
      { done: true, status: 'completed', reason: 'todo_status' },
    ],
    [
      'another todo marked completed does not end this one',
      { todos: [{ ...todo('u', 1, 'completed') }] },
      { done: false },
    ],
    ['no signal at all continues', {}, { done: false }],
  ])('%s', (_name, fields, expected) => {
    expect(executorOutcome(executor(fields), 't')).toEqual(expected);
  });
});

describe('todo order and plans', () => {
  test('priority 1 runs first, ties keep the planner order, ended todos are passed over', () => {
    const todos = [todo('a', 2), todo('b', 1, 'completed'), todo('c', 1), todo('d', 1)];
    expect(nextOpenTodo(todos)?.id).toBe('c');
    expect(nextOpenTodo([todo('x', 1, 'skipped'), todo('y', 1, 'failed')])).toBeUndefined();
  });

  test('a re-plan keeps the result of a todo it keeps completed and resets one it reopens', () => {
    const previous = [
      { ...todo('a', 1, 'completed'), result: 'A done', rounds: 2, endReason: 'task_completed' as const },
      { ...todo('b', 2, 'failed'), result: 'B failed', rounds: 10 },
    ];
    const next = applyPlan(
      previous,
      [
        { id: 'a', description: 'do a', priority: 1, status: 'completed' },
        { id: 'b', description: 'do b better', priority: 1, status: 'pending' },
        { id: 'b', description: 'duplicate id', priority: 3, status: 'pending' },
      ],
      2,
    );
    expect(next).toEqual([
      {
        id: 'a',
        description: 'do a',
        priority: 1,
        status: 'completed',
        rounds: 2,
        cycle: 1,
        result: 'A done',
        endReason: 'task_completed',
      },
      { id: 'b', description: 'do b better', priority: 1, status: 'pending', rounds: 0, cycle: 2 },
    ]);
  });
});

describe('todos reported on the way and planned calls', () => {
  test('pending todos the executor reports completed or skipped end; failed, ended or current ones do not', () => {
    const todos = [todo('a', 1, 'executing'), todo('b', 2), todo('c', 3), todo('d', 4, 'failed'), todo('e', 5)];
    const answer = executor({
      todos: ['a', 'b', 'c', 'd', 'e'].map((id, i) => ({
        id,
        description: `do ${id}`,
        priority: i + 1,
        status: (['completed', 'completed', 'skipped', 'completed', 'failed'] as const)[i],
      })),
    });
    expect(reportedTodos(answer, todos, 'a')).toEqual([
      { id: 'b', status: 'completed' },
      { id: 'c', status: 'skipped' },
    ]);
  });

  test("a plan's tool and parameters become the todo's call, made in its first round for a pinned tool only", () => {
    const [withCall, without] = applyPlan(
      [],
      [
        { id: 'n', description: 'note', priority: 1, status: 'pending', tool: 'write_note', parameters: { text: 'x' } },
        { id: 'm', description: 'think', priority: 2, status: 'pending' },
      ],
      1,
    );
    expect(withCall.call).toEqual({ tool: 'write_note', parameters: { text: 'x' } });
    expect(without.call).toBeUndefined();
    const tools = [{ name: 'write_note' } as PinnedTool];
    expect(plannedCall(withCall, 1, tools, 7)).toEqual({
      id: 'planned-7',
      name: 'write_note',
      arguments: { text: 'x' },
    });
    expect(plannedCall(withCall, 2, tools, 7)).toBeUndefined();
    expect(plannedCall(withCall, 1, [], 7)).toBeUndefined();
    expect(plannedCall(without, 1, tools, 7)).toBeUndefined();
  });

  test('stopOnFailedTodo is a boolean option', () => {
    expect(pevOptionProblems({ stopOnFailedTodo: 'yes' as unknown as boolean })).toEqual([
      'pev.stopOnFailedTodo must be true or false, got yes',
    ]);
    expect(resolvePevOptions({ stopOnFailedTodo: true }).stopOnFailedTodo).toBe(true);
  });
});

describe('dependencies and fan-out', () => {
  const after = (t: PevTodo, ...ids: string[]): PevTodo => ({ ...t, dependsOn: ids });

  test('a todo is ready once every todo it depends on has ended, up to the number asked for', () => {
    const todos = [todo('a', 1), after(todo('b', 1), 'a'), todo('c', 2), after(todo('d', 1), 'a', 'c')];
    expect(readyTodos(todos, 3).map((t) => t.id)).toEqual(['a', 'c']);
    expect(readyTodos(todos, 1).map((t) => t.id)).toEqual(['a']);
    const aDone = [
      todo('a', 1, 'failed'),
      after(todo('b', 1), 'a'),
      todo('c', 2, 'executing'),
      after(todo('d', 1), 'a', 'c'),
    ];
    expect(readyTodos(aDone, 3).map((t) => t.id)).toEqual(['b']);
    // In order without fan-out too: a todo waits for what it depends on, whatever its priority.
    expect(nextOpenTodo([after(todo('x', 1), 'y'), todo('y', 2)])?.id).toBe('y');
  });

  test('a circle of dependencies cannot stall the run, and an unknown id is no dependency', () => {
    expect(readyTodos([after(todo('a', 1), 'b'), after(todo('b', 2), 'a')], 2).map((t) => t.id)).toEqual(['a', 'b']);
    expect(readyTodos([after(todo('a', 1), 'b'), after(todo('b', 2), 'a'), todo('c', 3, 'executing')], 2)).toEqual([]);
    expect(readyTodos([after(todo('a', 1), 'nope')], 1).map((t) => t.id)).toEqual(['a']);
  });

  test('a plan keeps the dependencies on its own other todos only', () => {
    const next = applyPlan(
      [],
      [
        { id: 'a', description: 'do a', priority: 1, status: 'pending', dependsOn: ['a', 'zz'] },
        { id: 'b', description: 'do b', priority: 1, status: 'pending', dependsOn: ['a', 'a'] },
      ],
      1,
    );
    expect(next.map((t) => t.dependsOn)).toEqual([undefined, ['a']]);
    expect(todoRecitation(next)).toContain('b (priority 1, pending, after a): do b');
  });

  test('the planner may name dependencies as a list or one id', () => {
    const parsed = parseRoleAnswer(
      plannerRole,
      JSON.stringify({
        todos: [
          { id: 1, description: 'x', dependsOn: 2 },
          { id: 2, description: 'y' },
        ],
      }),
    );
    expect(parsed.ok && (parsed.value as PlannerResponse).todos.map((t) => t.dependsOn)).toEqual([['2'], undefined]);
  });

  test('an executor child reads the request, its todo and the results it builds on, and the run’s own context', () => {
    const done = { ...todo('a', 1, 'completed'), result: 'A is 7' };
    const task = todoChildTask({ request: 'Count.', todo: after(todo('b', 1), 'a'), dependencies: [done] });
    expect(task).toBe(
      '## User request\nCount.\n\n## Your task: b\ndo b\n\n## Results of the tasks it builds on\n\n### a (completed)\nA is 7',
    );
    expect(todoExecutorPrompt({ shared: 'Acme sells fruit.', roles: { executor: 'Count in dozens.' } })).toContain(
      'Acme sells fruit.\n\nCount in dozens.',
    );
  });

  test('parallel is a positive whole number, absent by default', () => {
    expect(pevOptionProblems({ parallel: 0 })).toEqual(['pev.parallel must be a positive integer, got 0']);
    expect(resolvePevOptions({ parallel: 3 }).parallel).toBe(3);
    expect(resolvePevOptions({}).parallel).toBeUndefined();
  });
});

describe('verifier cycles', () => {
  const verdict = (passed: boolean): VerifierResponse => ({
    type: 'component',
    component: 'verifier-response',
    allCompleted: passed,
    userNeedsSatisfied: passed,
    overallFeedback: '',
    tasks: [],
    ...(passed ? { summary: 'the answer' } : { improvements: ['do more', ' '] }),
  });

  test('a passing verdict finishes with the summary', () => {
    expect(afterVerifier(verdict(true), 1, limits)).toEqual({ next: 'finish', finalText: 'the answer' });
  });

  test('improvements start another cycle until the cycle limit', () => {
    expect(afterVerifier(verdict(false), 2, limits)).toEqual({ next: 'replan', improvements: ['do more'] });
    expect(afterVerifier(verdict(false), 3, limits)).toEqual({ next: 'max_cycles', improvements: ['do more'] });
  });
});

describe('tool-call dedupe ledger', () => {
  test('canonical JSON ignores key order at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
  });

  const tool = (name: string, extra: Partial<PinnedTool> = {}): PinnedTool => ({
    name,
    mode: 'server',
    timeoutMs: 1000,
    sideEffects: false,
    fingerprint: name,
    ...extra,
  });
  const tools = [tool('read'), tool('stat'), tool('write', { sideEffects: true }), tool('clock', { dedupe: false })];
  const ran = (id: string, name: string, args: Record<string, unknown>, resultHash: string, isError = false) => ({
    call: { id, name, arguments: args },
    resultHash,
    isError,
  });

  test('a successful call is reused for canonically equal arguments only', () => {
    let ledger = ledgerAfterCalls({}, tools, [ran('c1', 'read', { path: 'a.txt', lines: 5 }, 'h1')]);
    const hit = findReusable(ledger, tools, { name: 'read', arguments: { lines: 5, path: 'a.txt' } });
    expect(hit).toEqual({ toolName: 'read', toolCallId: 'c1', resultHash: 'h1' });
    expect(reuseNote(hit!)).toContain('c1');
    expect(findReusable(ledger, tools, { name: 'read', arguments: { path: 'b.txt', lines: 5 } })).toBeUndefined();
    expect(findReusable(ledger, tools, { name: 'stat', arguments: { path: 'a.txt', lines: 5 } })).toBeUndefined();
    ledger = ledgerAfterCalls(ledger, tools, [ran('c2', 'read', { path: 'a.txt', lines: 5 }, 'h2')]);
    expect(findReusable(ledger, tools, { name: 'read', arguments: { path: 'a.txt', lines: 5 } })?.toolCallId).toBe(
      'c1',
    );
  });

  test('an error result is never reused', () => {
    const ledger = ledgerAfterCalls({}, tools, [ran('c1', 'read', {}, 'h3', true)]);
    expect(findReusable(ledger, tools, { name: 'read', arguments: {} })).toBeUndefined();
  });

  test('a side-effecting call that ran ends every reuse, and is never reused itself', () => {
    let ledger = ledgerAfterCalls({}, tools, [ran('c1', 'read', { path: 'a.txt' }, 'h1')]);
    ledger = ledgerAfterCalls(ledger, tools, [ran('c2', 'write', { path: 'a.txt', text: 'new' }, 'h2')]);
    expect(ledger).toEqual({});
    expect(findReusable(ledger, tools, { name: 'write', arguments: { path: 'a.txt', text: 'new' } })).toBeUndefined();
    // A read beside a write in one answer is not kept either: it may have read before or after the write.
    ledger = ledgerAfterCalls({}, tools, [ran('c3', 'read', { path: 'a.txt' }, 'h3'), ran('c4', 'write', {}, 'h4')]);
    expect(ledger).toEqual({});
  });

  test('a call after a side-effecting one in the same answer reuses nothing; one before it may', () => {
    const ledger = ledgerAfterCalls({}, tools, [ran('c1', 'read', { path: 'a.txt' }, 'h1')]);
    const read = { name: 'read', arguments: { path: 'a.txt' } };
    const write = { name: 'write', arguments: { path: 'a.txt', text: 'new' } };
    expect(reusableInAnswer(ledger, tools, [read, write, read]).map((e) => e?.toolCallId)).toEqual([
      'c1',
      undefined,
      undefined,
    ]);
    // A malformed call never runs, so it changes nothing; an unknown tool may have.
    expect(reusableInAnswer(ledger, tools, [{ ...write, malformed: 'bad JSON' }, read])[1]?.toolCallId).toBe('c1');
    expect(reusableInAnswer(ledger, tools, [{ name: 'gone', arguments: {} }, read])[1]).toBeUndefined();
  });

  test('a tool that opts out, or one no longer pinned, is run again', () => {
    const ledger = ledgerAfterCalls({}, tools, [ran('c1', 'clock', {}, 'h1')]);
    expect(findReusable(ledger, tools, { name: 'clock', arguments: {} })).toBeUndefined();
    const read = ledgerAfterCalls({}, tools, [ran('c2', 'read', {}, 'h2')]);
    expect(findReusable(read, [tool('stat')], { name: 'read', arguments: {} })).toBeUndefined();
  });
});

describe('prompts and roles', () => {
  const prompts = {
    templates: {
      planner: '# Planner\n{{businessContext}}\n## Rules',
      reviewer: 'Review. {{ businessContext }} {{other}}',
    },
    businessContext: { planner: '# Shop\nOrders ship in 2 days.' },
  };

  test('the business context replaces the placeholder; a role without one gets a marker', () => {
    expect(systemPromptOf(prompts, 'planner')).toBe('# Planner\n# Shop\nOrders ship in 2 days.\n## Rules');
    expect(systemPromptOf(prompts, 'reviewer')).toBe(
      'Review. (No business context is configured for this application.) {{other}}',
    );
    expect(() => systemPromptOf(prompts, 'executor')).toThrow(/No core template for role "executor"/);
  });

  test('a new role gets parsing, re-ask and a response format from its definition', () => {
    const reviewerSchema = z.object({
      type: z.literal('component').default('component'),
      component: z.literal('reviewer-response'),
      approved: z.boolean(),
    });
    const reviewer: PevRoleDefinition = {
      name: 'reviewer',
      component: 'reviewer-response',
      schema: reviewerSchema,
      usesTools: false,
    };
    expect(parseRoleAnswer(reviewer, '```json\n{"component":"reviewer-response","approved":true}\n```')).toMatchObject({
      ok: true,
      value: { approved: true },
    });
    expect(responseFormatOf(reviewer)).toMatchObject({
      type: 'json_schema',
      name: 'reviewer-response',
      schema: { required: ['type', 'component', 'approved'] },
    });
  });

  test('the plan recitation marks statuses and the current todo', () => {
    const text = todoRecitation([todo('a', 1, 'completed'), todo('b', 2, 'executing')], 'b');
    expect(text).toBe(
      '## Current plan\n[x] a (priority 1, completed): do a\n[>] b (priority 2, executing) <- current: do b',
    );
  });
});
