/**
 * P/E/V fan-out (`pev.parallel`, `run --agent pev --parallel N`): todos that do not depend on each
 * other run as concurrent child runs (ReAct executors), a `dependsOn` chain runs in order, and the
 * verifier reads every child's result.
 */
import type { PevAgentResult } from '../../src/contracts/pev-run';
import { reply, type FakeStep, type RecordedRequest } from '../../src/testing/fake-provider';
import { readRunMessages } from '../../src/client/run-messages';
import { agentCli } from '../kit/agent-cli';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { Latch } from '../agent/agent-kit';
import { parentId } from '../agent/subagents-kit';
import { PRIMARY, answer, messageText, roleOf, systemOf, usePevFixture } from './pev-kit';

/** The todo a child executor works on, from its task; undefined for a request of the pev run's own roles. */
function todoOf(request: RecordedRequest): string | undefined {
  if (!systemOf(request).startsWith('You carry out one task')) return undefined;
  return /## Your task: (task-\d+)/.exec(messageText(request))?.[1];
}

const THREE = [
  { id: 'task-1', description: 'Count the apples.' },
  { id: 'task-2', description: 'Count the pears.' },
  { id: 'task-3', description: 'Count the plums.' },
];

describe('pev fan-out', () => {
  const fx = usePevFixture();

  it('runs three independent todos as concurrent child runs and the verifier reads every result', async () => {
    const order: string[] = [];
    const asked = new Set<string>();
    const allAsked = new Latch();
    let verifierPrompt = '';
    fx.fake.respond(async (request): Promise<FakeStep> => {
      const todo = todoOf(request);
      if (todo) {
        order.push(`${todo} asked`);
        asked.add(todo);
        if (asked.size === 3) allAsked.open();
        // A child answers only once all three have asked: children run one at a time would never get here.
        await Promise.race([allAsked.opened, new Promise((r) => setTimeout(r, 15_000).unref())]);
        order.push(`${todo} answered`);
        return reply.text(`${todo}: 7 found`, { usage: { input: 100, output: 10 } });
      }
      const role = roleOf(request);
      if (role === 'planner') return answer.plan(THREE);
      if (role === 'verifier') {
        verifierPrompt = messageText(request);
        return answer.verified('7 apples, 7 pears and 7 plums.');
      }
      throw new Error(`unexpected request #${request.seq} (${role})`);
    });
    const out = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        id: parentId('pev-parallel'),
        kind: 'pev',
        task: 'Count the fruit.',
        model: PRIMARY,
        pev: { parallel: 3 },
      });
      const result = (await agents.result(id)) as PevAgentResult;
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-parallel');
      const messages = await readRunMessages(fx.store, id);
      return { id, result, messages };
    });
    expect(order.slice(0, 3).every((o) => o.endsWith('asked'))).toBe(true);
    expect(out.result).toMatchObject({ status: 'completed', finalText: '7 apples, 7 pears and 7 plums.' });
    expect(out.result.todos.map((t) => [t.id, t.status, t.endReason, t.result])).toEqual([
      ['task-1', 'completed', 'child_run', 'task-1: 7 found'],
      ['task-2', 'completed', 'child_run', 'task-2: 7 found'],
      ['task-3', 'completed', 'child_run', 'task-3: 7 found'],
    ]);
    expect(out.result.children?.map((c) => [c.agent, c.todoId, c.status])).toEqual([
      ['executor', 'task-1', 'completed'],
      ['executor', 'task-2', 'completed'],
      ['executor', 'task-3', 'completed'],
    ]);
    // The children's spend is the parent's too.
    expect(out.result.usage.inputTokens).toBeGreaterThanOrEqual(300);
    for (const todo of THREE) expect(verifierPrompt).toContain(`${todo.id}: 7 found`);
    // The run's conversation names the child each todo ran as.
    const notes = out.messages.flatMap((m) => (m.role === 'note' && m.childRun ? [m.childRun] : []));
    expect(notes).toEqual(out.result.children?.map((c) => c.id));
    // The executors are ReAct runs, each with the run's tools, none of the pev roles' prompts.
    expect(fx.fake.requests.filter((r) => todoOf(r) !== undefined)).toHaveLength(3);
  });

  it('runs a dependsOn chain in order from the command line, each child reading the results it builds on', async () => {
    const events: string[] = [];
    const tasks: Record<string, string> = {};
    fx.fake.respond((request): FakeStep => {
      const todo = todoOf(request);
      if (todo) {
        events.push(todo);
        tasks[todo] = messageText(request);
        return reply.text(`${todo} done`);
      }
      const role = roleOf(request);
      if (role === 'planner')
        return reply.text(
          JSON.stringify({
            type: 'component',
            component: 'planner-response',
            summary: 'a chain',
            needsMorePlanning: false,
            todos: [
              { id: 'task-3', description: 'Write it up.', priority: 1, dependsOn: ['task-2'] },
              { id: 'task-2', description: 'Weigh them.', priority: 1, dependsOn: ['task-1'] },
              { id: 'task-1', description: 'Pick the apples.', priority: 1 },
            ],
          }),
        );
      if (role === 'verifier') return answer.verified('Picked, weighed, written.');
      throw new Error(`unexpected request #${request.seq} (${role})`);
    });
    await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const id = parentId('pev-parallel-chain');
      const printed = await cli.run(
        'run',
        '--agent',
        'pev',
        '--parallel',
        '3',
        '--model',
        PRIMARY,
        '--id',
        id,
        'Apples.',
      );
      expect(printed).toContain('Picked, weighed, written.');
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-parallel-chain');
      // A closed run's state comes from a worker's replay; on a loaded machine an ask may be answered
      // from the result alone (no children, and a note saying so), so it is asked until a worker answers.
      const child = `child ${id}/executor-task-1-t1 (executor, todo task-1): completed`;
      let state = '';
      for (const deadline = Date.now() + 45_000; !state.includes(child) && Date.now() < deadline;)
        state = await cli.run('state', id);
      expect(state).toContain(child);
    });
    expect(events).toEqual(['task-1', 'task-2', 'task-3']);
    expect(tasks['task-2']).toContain('### task-1 (completed)\ntask-1 done');
    expect(tasks['task-3']).toContain('### task-2 (completed)\ntask-2 done');
    expect(tasks['task-1']).not.toContain('Results of the tasks it builds on');
  });
});
