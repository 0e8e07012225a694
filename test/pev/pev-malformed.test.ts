import { reply, type FakeStep } from '../../src/testing/fake-provider';
import type { PevAgentResult } from '../../src/contracts/pev-run';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { answer, messageText, usePevFixture, pevResult, startPev, type PevFixture } from './pev-kit';

const TASK = 'Add 2 and 2.';
const plan = answer.plan([{ id: 'task-1', description: 'Add 2 and 2' }]);
const planJson = JSON.stringify({
  type: 'component',
  component: 'planner-response',
  summary: 's',
  needsMorePlanning: false,
  todos: [{ id: 'task-1', description: 'Add 2 and 2', priority: 1, status: 'pending' }],
});
const execJson = JSON.stringify({
  type: 'component',
  component: 'executor-response',
  summary: '2 + 2 = 4',
  taskCompleted: true,
});
const verifyJson = JSON.stringify({
  type: 'component',
  component: 'verifier-response',
  allCompleted: true,
  userNeedsSatisfied: true,
  summary: 'It is 4.',
  tasks: [{ id: 'task-1', completed: true, feedback: 'ok' }],
});
const executed = answer.executed('2 + 2 = 4');
const verified = answer.verified('It is 4.');
const text = (t: string) => reply.text(t);

interface Case {
  name: string;
  /** File name of the recorded history (test/histories). */
  history: string;
  steps: FakeStep[];
  /** `reask:<role>` / `fallback:<role>` entries of the trace, in order. */
  corrections: string[];
  check: (result: PevAgentResult, fx: PevFixture) => void;
}

const recovered = (result: PevAgentResult) => {
  expect(result).toMatchObject({ stopReason: 'completed', finalText: 'It is 4.', pev: { verified: true } });
  expect(result.todos).toEqual([expect.objectContaining({ id: 'task-1', status: 'completed' })]);
};

const cases: Case[] = [
  {
    name: 'planner: fenced with prose around it',
    history: 'pev-malformed-planner-fenced',
    steps: [text(`Here is the plan:\n\`\`\`json\n${planJson}\n\`\`\`\nGood luck.`), executed, verified],
    corrections: [],
    check: recovered,
  },
  {
    name: 'planner: trailing text after the object',
    history: 'pev-malformed-planner-trailing-text',
    steps: [text(`${planJson} -- that is all`), executed, verified],
    corrections: [],
    check: recovered,
  },
  {
    name: 'planner: truncated',
    history: 'pev-malformed-planner-truncated',
    steps: [text(planJson.slice(0, -3)), executed, verified],
    corrections: [],
    check: recovered,
  },
  {
    name: 'planner: missing todos, corrected after the re-ask',
    history: 'pev-malformed-planner-missing-todos-reasked',
    steps: [text('{"type":"component","component":"planner-response","summary":"thinking"}'), plan, executed, verified],
    corrections: ['reask:planner'],
    check: (result, fx) => {
      recovered(result);
      expect(messageText(fx.fake.requests[1])).toContain('todos: Invalid input');
    },
  },
  {
    name: 'planner: wrong types twice, fallback to one task carrying the request',
    history: 'pev-malformed-planner-wrong-types-fallback',
    steps: [
      text(planJson.replace('"needsMorePlanning":false', '"needsMorePlanning":"perhaps"')),
      text('{"todos":"add things"}'),
      executed,
      verified,
    ],
    corrections: ['reask:planner', 'fallback:planner'],
    check: (result) => {
      expect(result.finalText).toBe('It is 4.');
      expect(result.todos).toEqual([expect.objectContaining({ id: 'task-1', description: TASK, status: 'completed' })]);
      expect(result.pev.trace[2]).toMatchObject({ type: 'planning_ended', reason: 'fallback' });
    },
  },
  {
    name: 'planner: calls a tool, refused and re-asked',
    history: 'pev-malformed-planner-calls-tool',
    steps: [reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 2 } }]), plan, executed, verified],
    corrections: ['reask:planner'],
    check: (result, fx) => {
      recovered(result);
      expect(fx.calls).toEqual([]);
    },
  },
  {
    name: 'executor: fenced with trailing text',
    history: 'pev-malformed-executor-fenced',
    steps: [plan, text(`\`\`\`json\n${execJson}\n\`\`\` done.`), verified],
    corrections: [],
    check: recovered,
  },
  {
    name: 'executor: truncated',
    history: 'pev-malformed-executor-truncated',
    steps: [plan, text(execJson.slice(0, -1)), verified],
    corrections: [],
    check: recovered,
  },
  {
    name: 'executor: wrong type, corrected after the re-ask',
    history: 'pev-malformed-executor-wrong-type-reasked',
    steps: [plan, text(execJson.replace('"taskCompleted":true', '"taskCompleted":1')), executed, verified],
    corrections: ['reask:executor'],
    check: (result, fx) => {
      recovered(result);
      expect(messageText(fx.fake.requests[2])).toContain('taskCompleted: Invalid input: expected boolean');
      expect(result.todos[0]).toMatchObject({ rounds: 2, endReason: 'task_completed' });
    },
  },
  {
    name: 'executor: prose twice, fallback takes the prose as the result',
    history: 'pev-malformed-executor-prose-fallback',
    steps: [plan, text('I added them.'), text('The answer is 4.'), verified],
    corrections: ['reask:executor', 'fallback:executor'],
    check: (result) => {
      expect(result.finalText).toBe('It is 4.');
      expect(result.todos).toEqual([
        expect.objectContaining({ status: 'completed', endReason: 'fallback', result: 'The answer is 4.' }),
      ]);
    },
  },
  {
    name: 'verifier: fenced',
    history: 'pev-malformed-verifier-fenced',
    steps: [plan, executed, text(`\`\`\`\n${verifyJson}\n\`\`\``)],
    corrections: [],
    check: recovered,
  },
  {
    name: 'verifier: truncated in the task list',
    history: 'pev-malformed-verifier-truncated',
    steps: [plan, executed, text(verifyJson.slice(0, verifyJson.indexOf('"feedback"')))],
    corrections: [],
    check: recovered,
  },
  {
    name: 'verifier: missing summary, corrected after the re-ask',
    history: 'pev-malformed-verifier-missing-summary-reasked',
    steps: [plan, executed, text('{"allCompleted":true,"userNeedsSatisfied":true}'), verified],
    corrections: ['reask:verifier'],
    check: (result, fx) => {
      recovered(result);
      expect(messageText(fx.fake.requests[3])).toContain('summary: summary is required');
    },
  },
  {
    name: 'verifier: wrong types twice, the run ends unverified with the todo results',
    history: 'pev-malformed-verifier-wrong-types-unverified',
    steps: [plan, executed, text('{"allCompleted":"yes"}'), text('{"allCompleted":"yes","userNeedsSatisfied":"very"}')],
    corrections: ['reask:verifier', 'fallback:verifier'],
    check: (result) => {
      expect(result).toMatchObject({
        status: 'completed',
        stopReason: 'unverified',
        pev: { verified: false, endReason: 'unverified' },
      });
      expect(result.finalText).toBe('Add 2 and 2\n2 + 2 = 4');
    },
  },
];

describe('malformed answers of every role, on a real server', () => {
  const fx = usePevFixture();

  test.each(cases)('$name', async ({ steps, corrections, check, history }) => {
    fx.fake.reset();
    fx.calls.length = 0;
    fx.fake.script(...steps);
    const result = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const id = await startPev(client, taskQueue, { task: TASK });
      const res = await pevResult(client, id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), history);
      return res;
    });
    expect(
      result.pev.trace
        .filter((e) => e.type === 'reask' || e.type === 'fallback')
        .map((e) => `${e.type}:${'role' in e ? e.role : ''}`),
    ).toEqual(corrections);
    check(result, fx);
    expect(fx.fake.pending()).toBe(0);
    expect(fx.fake.requests.map((r) => r.error)).toEqual(steps.map(() => undefined));
  });
});
