/**
 * How a pev run works its plan (docs/plans.md, pev plans): todos the executor reports done on the way are not
 * run again, every message says which role it belongs to, a plan may name the tool call of a todo
 * (made without a model turn, through the one tool path), and a run may stop on a failed todo.
 */
import { AgentClient } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import type { RunMessage } from '../../src/contracts/run-message';
import { saveHistoryIfRecording, useWorker } from '../kit/temporal';
import { waitForState } from '../agent/agent-kit';
import { answer, pevResult, roleOf, startPev, usePevFixture, type StartPev } from './pev-kit';

const roles = (messages: RunMessage[]) =>
  messages.flatMap((m) => (m.role === 'user' || m.role === 'assistant' ? [`${m.role}:${m.agentRole ?? '-'}`] : []));

describe('pev plans on a real server', () => {
  const fx = usePevFixture();
  const worker = useWorker(() => ({ activities: fx.pevActivities }));
  const agents = () => new AgentClient(worker.client, worker.taskQueue, { store: fx.store });

  async function run(start: StartPev, history: string) {
    const id = await startPev(worker.client, worker.taskQueue, start);
    const result = await pevResult(worker.client, id);
    await saveHistoryIfRecording(worker.client.workflow.getHandle(id), history);
    return { id, result };
  }

  it('a todo the executor reports done on the way is not run again, and every message names its role', async () => {
    fx.fake.script(
      answer.plan([
        { id: 'sum', description: 'Add 2 and 3' },
        { id: 'report', description: 'Write the sum down' },
      ]),
      answer.executed('2 + 3 = 5, written down as well', {
        taskCompleted: true,
        todos: [
          { id: 'sum', description: 'Add 2 and 3', status: 'completed' },
          { id: 'report', description: 'Write the sum down', status: 'completed' },
        ],
      }),
      answer.verified('5'),
    );
    const { id, result } = await run({ task: 'Add 2 and 3 and write it down.' }, 'pev-reported-todos');
    expect(result).toMatchObject({ stopReason: 'completed', finalText: '5' });
    expect(fx.fake.requests.map(roleOf)).toEqual(['planner', 'executor', 'verifier']);
    expect(result.todos.find((t) => t.id === 'report')).toMatchObject({
      status: 'completed',
      endReason: 'reported',
      rounds: 0,
    });
    expect(roles(await agents().messages(id))).toEqual([
      'user:-',
      'user:planner',
      'assistant:planner',
      'user:executor',
      'assistant:executor',
      'user:verifier',
      'assistant:verifier',
    ]);
    const state = await agents().state(id);
    expect(state.messages.filter((m) => m.kind === 'assistant').map((m) => m.agentRole)).toEqual([
      'planner',
      'executor',
      'verifier',
    ]);
  });

  it('a todo whose plan names its tool call makes it without a model turn, through approval like any call', async () => {
    fx.fake.script(
      reply.text(
        JSON.stringify({
          type: 'component',
          component: 'planner-response',
          summary: 'one call',
          todos: [
            {
              id: 'note',
              description: 'Write the note "ready"',
              priority: 1,
              tool: 'write_note',
              parameters: { text: 'ready' },
            },
          ],
        }),
      ),
      answer.executed('wrote the note'),
      answer.verified('The note says ready.'),
    );
    const id = await startPev(worker.client, worker.taskQueue, {
      task: 'Write the note "ready".',
      options: { tools: { approve: ['write_note'] } },
    });
    const waiting = await waitForState(agents(), id, (s) => s.pendingApprovals.length === 1);
    expect(waiting.pendingApprovals[0]).toMatchObject({ tool: 'write_note', args: { text: 'ready' } });
    expect(fx.fake.requests.map(roleOf)).toEqual(['planner']);
    await agents().approve(id, waiting.pendingApprovals[0].toolCallId);
    const result = await pevResult(worker.client, id);
    await saveHistoryIfRecording(worker.client.workflow.getHandle(id), 'pev-planned-call');
    expect(result).toMatchObject({ stopReason: 'completed', finalText: 'The note says ready.' });
    expect(fx.calls).toEqual(['write_note:ready']);
    expect(fx.fake.requests.map(roleOf)).toEqual(['planner', 'executor', 'verifier']);
    expect(result.pev.trace).toContainEqual(
      expect.objectContaining({ type: 'planned_call', todoId: 'note', toolName: 'write_note' }),
    );
    expect(result.todos[0]).toMatchObject({ status: 'completed', rounds: 2 });
  });

  it('with stopOnFailedTodo, a failed todo ends the run without running the rest or the verifier', async () => {
    fx.fake.script(
      answer.plan([
        { id: 'fetch', description: 'Fetch the price' },
        { id: 'report', description: 'Report it' },
      ]),
      answer.executed('the price service is down', { taskCompleted: false, shouldContinue: false }),
    );
    const { result } = await run(
      { task: 'Report the price.', pev: { stopOnFailedTodo: true } },
      'pev-stop-on-failed-todo',
    );
    expect(result).toMatchObject({ status: 'completed', stopReason: 'todo_failed' });
    expect(result.finalText).toContain('todo fetch (Fetch the price) failed: the price service is down');
    expect(fx.fake.requests.map(roleOf)).toEqual(['planner', 'executor']);
    expect(result.todos.map((t) => [t.id, t.status])).toEqual([
      ['fetch', 'failed'],
      ['report', 'pending'],
    ]);
  });
});
