import { correctiveReask, parseRoleAnswer } from '../../../../src/policy/pev/parse-answer';
import { executorFallback, plannerFallback, unverifiedFinalText } from '../../../../src/policy/pev/fallbacks';
import { executorRole, plannerRole, verifierRole, type PevRoleDefinition } from '../../../../src/policy/pev/roles';
import { extractJsonObject } from '../../../../src/policy/extract-json';
import { type PevTodo } from '../../../../src/contracts/pev-progress';

const plannerJson = JSON.stringify({
  type: 'component',
  component: 'planner-response',
  summary: 'two steps',
  needsMorePlanning: false,
  todos: [
    { id: 'task-1', description: 'read the file', priority: 1, status: 'pending' },
    { id: 'task-2', description: 'count the words', priority: 2, status: 'pending' },
  ],
});
const executorJson = JSON.stringify({
  type: 'component',
  component: 'executor-response',
  summary: 'the file has 42 words',
  taskCompleted: true,
  shouldContinue: false,
  nextAction: 'complete',
  todos: [{ id: 'task-1', description: 'read the file', priority: 1, status: 'completed', isCurrent: true }],
});
const verifierJson = JSON.stringify({
  type: 'component',
  component: 'verifier-response',
  allCompleted: true,
  userNeedsSatisfied: true,
  overallFeedback: 'fine',
  summary: 'The file has 42 words.',
  tasks: [{ id: 'task-1', completed: true, feedback: 'ok' }],
});

type Expectation = { ok: true; check: (value: Record<string, unknown>) => void } | { ok: false; problem: RegExp };
interface Case {
  name: string;
  text: string;
  expect: Expectation;
}

const fence = (s: string) => 'Here is my answer:\n```json\n' + s + '\n```\n';
const truncate = (s: string, cut: number) => s.slice(0, s.length - cut);

const tables: { role: PevRoleDefinition; cases: Case[] }[] = [
  {
    role: plannerRole,
    cases: [
      { name: 'exact JSON', text: plannerJson, expect: { ok: true, check: (v) => expect(v.todos).toHaveLength(2) } },
      {
        name: 'fenced with prose before',
        text: fence(plannerJson),
        expect: { ok: true, check: (v) => expect(v.summary).toBe('two steps') },
      },
      {
        name: 'trailing text after the object',
        text: `${plannerJson}\n\nLet me know if you want changes {really}.`,
        expect: { ok: true, check: (v) => expect(v.todos).toHaveLength(2) },
      },
      {
        name: 'truncated between two todos',
        text: plannerJson.slice(0, plannerJson.indexOf('{"id":"task-2"')),
        expect: { ok: true, check: (v) => expect((v.todos as unknown[]).length).toBe(1) },
      },
      {
        name: 'truncated inside a todo',
        text: plannerJson.slice(0, plannerJson.indexOf('"task-2"') - 2),
        expect: { ok: false, problem: /todos\.1\.id/ },
      },
      {
        name: 'trailing commas and single quotes',
        text: "{'component':'planner-response','needsMorePlanning':false,'todos':[{'id':'a','description':'x','priority':1,},],}",
        expect: { ok: true, check: (v) => expect(v.type).toBe('component') },
      },
      {
        name: 'numbers and booleans written as strings',
        text: plannerJson
          .replace('"priority":2', '"priority":"2"')
          .replace('"needsMorePlanning":false', '"needsMorePlanning":"false"'),
        expect: { ok: true, check: (v) => expect((v.todos as { priority: number }[])[1]!.priority).toBe(2) },
      },
      {
        name: 'missing type and component are filled in',
        text: '{"needsMorePlanning":false,"todos":[{"id":"t","description":"d"}]}',
        expect: {
          ok: true,
          check: (v) =>
            expect([v.component, (v.todos as { status: string }[])[0]!.status]).toEqual([
              'planner-response',
              'pending',
            ]),
        },
      },
      {
        name: 'missing todos',
        text: '{"type":"component","component":"planner-response","summary":"s"}',
        expect: { ok: false, problem: /todos/ },
      },
      {
        name: 'wrong type for needsMorePlanning',
        text: plannerJson.replace('"needsMorePlanning":false', '"needsMorePlanning":"maybe"'),
        expect: { ok: false, problem: /needsMorePlanning/ },
      },
      {
        name: 'wrong component',
        text: plannerJson.replace('planner-response', 'executor-response'),
        expect: { ok: false, problem: /component/ },
      },
      {
        name: 'prose only',
        text: 'I think we should first read the file.',
        expect: { ok: false, problem: /no JSON object/ },
      },
      { name: 'empty answer', text: '   ', expect: { ok: false, problem: /empty/ } },
    ],
  },
  {
    role: executorRole,
    cases: [
      {
        name: 'exact JSON',
        text: executorJson,
        expect: { ok: true, check: (v) => expect(v.taskCompleted).toBe(true) },
      },
      {
        name: 'fenced',
        text: fence(executorJson),
        expect: { ok: true, check: (v) => expect(v.nextAction).toBe('complete') },
      },
      {
        name: 'trailing text',
        text: `${executorJson} Done!`,
        expect: { ok: true, check: (v) => expect(v.summary).toMatch(/42/) },
      },
      {
        name: 'truncated before the todo list closes',
        text: truncate(executorJson, 3),
        expect: { ok: true, check: (v) => expect(v.todos).toHaveLength(1) },
      },
      {
        name: 'boolean as string and upper-case nextAction',
        text: executorJson
          .replace('"taskCompleted":true', '"taskCompleted":"true"')
          .replace('"complete"', '"COMPLETE"'),
        expect: { ok: true, check: (v) => expect([v.taskCompleted, v.nextAction]).toEqual([true, 'complete']) },
      },
      {
        name: 'flow-control fields absent',
        text: '{"summary":"still reading"}',
        expect: {
          ok: true,
          check: (v) => expect([v.taskCompleted, v.nextAction, v.todos]).toEqual([undefined, undefined, []]),
        },
      },
      {
        name: 'missing summary',
        text: '{"component":"executor-response","taskCompleted":true}',
        expect: { ok: false, problem: /summary/ },
      },
      {
        name: 'wrong type for taskCompleted',
        text: executorJson.replace('"taskCompleted":true', '"taskCompleted":1'),
        expect: { ok: false, problem: /taskCompleted/ },
      },
      {
        name: 'unknown nextAction',
        text: executorJson.replace('"complete"', '"celebrate"'),
        expect: { ok: false, problem: /nextAction/ },
      },
      { name: 'a JSON array instead of an object', text: '[1,2,3]', expect: { ok: false, problem: /no JSON object/ } },
    ],
  },
  {
    role: verifierRole,
    cases: [
      {
        name: 'exact JSON',
        text: verifierJson,
        expect: { ok: true, check: (v) => expect(v.summary).toBe('The file has 42 words.') },
      },
      {
        name: 'fenced',
        text: fence(verifierJson),
        expect: { ok: true, check: (v) => expect(v.allCompleted).toBe(true) },
      },
      {
        name: 'trailing text',
        text: `${verifierJson}\nThanks.`,
        expect: { ok: true, check: (v) => expect(v.tasks).toHaveLength(1) },
      },
      {
        name: 'truncated in the task list',
        text: verifierJson.slice(0, verifierJson.indexOf('"feedback":"ok"')),
        expect: { ok: true, check: (v) => expect(v.summary).toBe('The file has 42 words.') },
      },
      {
        name: 'improvements without summary when not satisfied',
        text: '{"allCompleted":false,"userNeedsSatisfied":false,"improvements":["count again"]}',
        expect: { ok: true, check: (v) => expect(v.improvements).toEqual(['count again']) },
      },
      {
        name: 'satisfied but no summary',
        text: '{"allCompleted":true,"userNeedsSatisfied":true}',
        expect: { ok: false, problem: /summary is required/ },
      },
      {
        name: 'not satisfied and no improvements',
        text: '{"allCompleted":false,"userNeedsSatisfied":true,"summary":"x"}',
        expect: { ok: false, problem: /improvements/ },
      },
      {
        name: 'wrong type for allCompleted',
        text: verifierJson.replace('"allCompleted":true', '"allCompleted":"yes"'),
        expect: { ok: false, problem: /allCompleted/ },
      },
      {
        name: 'missing allCompleted',
        text: '{"userNeedsSatisfied":true,"summary":"s"}',
        expect: { ok: false, problem: /allCompleted/ },
      },
    ],
  },
];

describe.each(tables)('$role.name answers', ({ role, cases }) => {
  test.each(cases)('$name', ({ text, expect: expectation }) => {
    const parsed = parseRoleAnswer(role, text);
    if (expectation.ok) {
      if (!parsed.ok) throw new Error(`expected to parse, got: ${parsed.problems.join('; ')}`);
      expect(parsed.value).toMatchObject({ type: 'component', component: role.component });
      expectation.check(parsed.value as Record<string, unknown>);
    } else {
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.problems.join('\n')).toMatch(expectation.problem);
      const reask = correctiveReask(role, parsed.problems);
      expect(reask).toContain(`"component": "${role.component}"`);
      expect(reask).toMatch(expectation.problem);
    }
  });
});

describe('extraction', () => {
  test('prefers the exact object over a repaired inner one', () => {
    const result = extractJsonObject('Result: {"a": {"b": 1}, "c": [1, 2]} end');
    expect(result).toEqual({ ok: true, value: { a: { b: 1 }, c: [1, 2] }, method: 'embedded' });
  });

  test('reports the repair of a truncated object', () => {
    const result = extractJsonObject('{"summary": "half an ans');
    expect(result).toEqual({ ok: true, value: { summary: 'half an ans' }, method: 'repaired' });
  });

  test('skips an unrelated brace group in prose and finds the answer after it', () => {
    const result = extractJsonObject('Use {curly} placeholders. {"summary":"ok"}');
    expect(result.ok && result.value).toEqual({ summary: 'ok' });
  });
});

describe('fallbacks', () => {
  test('planner fallback keeps the last valid plan of the cycle', () => {
    const lastValid = plannerRole.schema.parse(JSON.parse(plannerJson));
    const fb = plannerFallback({
      request: 'count words',
      improvements: [],
      lastValid: { ...lastValid, needsMorePlanning: true },
    });
    expect(fb.todos.map((t) => t.id)).toEqual(['task-1', 'task-2']);
    expect(fb.needsMorePlanning).toBe(false);
  });

  test('planner fallback without a plan executes the request, with the improvements, as one task', () => {
    const fb = plannerFallback({ request: 'count words', improvements: ['count the title too'] });
    expect(fb.todos).toHaveLength(1);
    expect(fb.todos[0]!.description).toContain('count words');
    expect(fb.todos[0]!.description).toContain('- count the title too');
  });

  test('executor fallback takes prose as the result, and fails an empty answer', () => {
    expect(executorFallback(' The file has 42 words. ')).toEqual({
      status: 'completed',
      result: 'The file has 42 words.',
    });
    expect(executorFallback('').status).toBe('failed');
  });

  test('verifier fallback text: prose, else a summary field, else the todo results', () => {
    const todos: PevTodo[] = [
      { id: 't', description: 'count', priority: 1, status: 'completed', result: '42 words', rounds: 1, cycle: 1 },
    ];
    expect(unverifiedFinalText('It has 42 words.', todos)).toBe('It has 42 words.');
    expect(unverifiedFinalText('{"allCompleted":true,"summary":"42 words in total"', todos)).toBe('42 words in total');
    expect(unverifiedFinalText('{"allCompleted":true}', todos)).toBe('count\n42 words');
  });
});
