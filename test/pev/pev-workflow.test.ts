import { reply } from '../../src/testing/fake-provider';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { anthropicMessages } from '../agent/agent-kit';
import {
  FALLBACK,
  answer,
  messageText,
  usePevFixture,
  pevResult,
  roleOf,
  startPev,
  systemOf,
  type PevFixture,
} from './pev-kit';

/** Two todos that each add 2 and 3 (the second with `second.args`), then the verifier's summary. */
function scriptTwoAdds(
  fx: PevFixture,
  second: { description: string; args: Record<string, number>; result: string },
  summary: string,
): void {
  fx.fake.script(
    answer.plan([
      { id: 'task-1', description: 'Add 2 and 3' },
      { id: 'task-2', description: second.description },
    ]),
    reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }]),
    answer.executed('5'),
    reply.toolCalls([{ name: 'add', arguments: second.args }]),
    answer.executed(second.result),
    answer.verified(summary),
  );
}

describe('planner → executor → verifier on a real server, replaying every workflow task', () => {
  const fx = usePevFixture();

  it('runs two cycles: improvements go back to the planner and finalText is the verifier summary', async () => {
    fx.fake.script(
      answer.plan([
        { id: 'task-1', description: 'Add 2 and 3' },
        { id: 'task-2', description: 'Write the sum down' },
      ]),
      reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }]),
      answer.executed('2 + 3 = 5'),
      reply.toolCalls([{ name: 'write_note', arguments: { text: 'sum 5' } }]),
      answer.executed('wrote the note', { nextAction: 'complete' }),
      answer.improve('Also add 10 to the sum'),
      answer.plan([
        { id: 'task-1', description: 'Add 2 and 3', status: 'completed' },
        { id: 'task-3', description: 'Add 10 to 5' },
      ]),
      reply.toolCalls([{ name: 'add', arguments: { a: 5, b: 10 } }]),
      answer.executed('5 + 10 = 15', {
        todos: [{ id: 'task-3', description: 'Add 10 to 5', priority: 2, status: 'completed' }],
      }),
      answer.verified('The sum of 2 and 3 is 5; adding 10 gives 15.'),
    );
    const { result, phases } = await withWorker(
      { activities: fx.pevActivities, maxCachedWorkflows: 0 },
      async ({ client, taskQueue }) => {
        const id = await startPev(client, taskQueue, {
          task: 'Add 2 and 3, note it, then add 10.',
          pev: { models: { executor: FALLBACK } },
        });
        const res = await pevResult(client, id);
        await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-two-cycles');
        const { events } = await fx.agents(client, taskQueue).state(id);
        return {
          result: res,
          phases: events.flatMap((e) =>
            e.type === 'phase' ? [`${e.cycle}:${e.phase}${e.todoId ? `:${e.todoId}` : ''}`] : [],
          ),
        };
      },
    );
    // Watchers and traces see the rounds as phase events.
    expect(phases).toEqual([
      '1:planning',
      '1:executing:task-1',
      '1:executing:task-2',
      '1:verifying',
      '2:planning',
      '2:executing:task-3',
      '2:verifying',
      '2:done',
    ]);

    expect(result).toMatchObject({
      status: 'completed',
      stopReason: 'completed',
      finalText: 'The sum of 2 and 3 is 5; adding 10 gives 15.',
    });
    expect(result.pev).toMatchObject({ cycles: 2, verified: true, endReason: 'completed' });
    expect(result.todos.map((t) => [t.id, t.status, t.endReason])).toEqual([
      ['task-1', 'completed', 'task_completed'],
      ['task-3', 'completed', 'todo_status'],
    ]);
    expect(
      result.pev.trace.map(
        (e) => `${e.cycle}:${e.type}${'reason' in e ? `:${e.reason}` : ''}${'passed' in e ? `:${e.passed}` : ''}`,
      ),
    ).toEqual([
      '1:planning_ended:planned',
      '1:todo_ended:task_completed',
      '1:todo_ended:next_action',
      '1:verified:false',
      '2:planning_ended:planned',
      '2:todo_ended:todo_status',
      '2:verified:true',
    ]);
    expect(fx.calls).toEqual(['add:2+3', 'write_note:sum 5', 'add:5+10']);

    // Who answered what: the executor ran on its own model (OpenAI wire), the others on the run's.
    const requests = fx.fake.requests;
    expect(requests.map((r) => r.error)).toEqual(new Array(10).fill(undefined));
    expect(requests.map((r) => (r.api === 'openai' ? 'executor' : roleOf(r)))).toEqual([
      'planner',
      'executor',
      'executor',
      'executor',
      'executor',
      'verifier',
      'planner',
      'executor',
      'executor',
      'verifier',
    ]);
    // The planner calls no tools; it still sees them (the history holds tool calls).
    expect(requests[0].body.tool_choice).toEqual({ type: 'none' });
    expect(requests[1].body.tool_choice).toBeUndefined();
    // Structured output: OpenAI gets the role's JSON schema natively, Anthropic as an instruction.
    expect(requests[1].body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'executor-response', schema: { required: expect.arrayContaining(['summary']) } },
    });
    expect(systemOf(requests[0])).toContain('The JSON must conform to this JSON Schema (named "planner-response")');
    // The verifier's improvements reach the planner of the next cycle; the plan is recited to the executor.
    expect(messageText(requests[6])).toContain('- Also add 10 to the sum');
    expect(JSON.stringify(requests[7].body.messages)).toContain('[x] task-1 (priority 1, completed): Add 2 and 3');
    expect(systemOf(requests[5])).toContain('"component": "verifier-response"');
  });

  it('answers a repeated identical tool call from the earlier result without running the tool again', async () => {
    scriptTwoAdds(fx, { description: 'Double-check 2 + 3', args: { b: 3, a: 2 }, result: 'still 5' }, '2 + 3 = 5');
    const { result, state } = await withWorker(
      { activities: fx.pevActivities, maxCachedWorkflows: 0 },
      async ({ client, taskQueue }) => {
        const agents = fx.agents(client, taskQueue);
        const id = await startPev(client, taskQueue, { task: 'Add 2 and 3 twice.' });
        const res = await pevResult(client, id);
        await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-dedupe');
        return { result: res, state: await agents.state(id) };
      },
    );
    expect(result.finalText).toBe('2 + 3 = 5');
    expect(fx.calls).toEqual(['add:2+3']);
    const reused = result.pev.trace.filter((e) => e.type === 'tool_reused');
    expect(reused).toEqual([
      expect.objectContaining({ type: 'tool_reused', cycle: 1, todoId: 'task-2', toolName: 'add' }),
    ]);
    const execution = state.events.filter((e) => e.type === 'tool_execution');
    expect(execution.map((e) => (e.type === 'tool_execution' ? (e.skipped ?? 'ran') : ''))).toEqual([
      'ran',
      expect.stringMatching(/^reused the result of /),
    ]);
    // The model receives the earlier result, marked as reused.
    const messages = anthropicMessages(fx.fake.requests[4].body);
    const toolResults = messages.flatMap((m) => m.blocks).filter((b) => b.type === 'tool_result');
    expect(toolResults).toHaveLength(2);
    const [first, second] = toolResults.map((b) => b.content);
    expect(first).toEqual([{ type: 'text', text: '5' }]);
    expect(second).toEqual([
      {
        type: 'text',
        text: `[Identical call already made as ${String(toolResults[0].tool_use_id)}; its result is reused and the tool was not run again.]`,
      },
      { type: 'text', text: '5' },
    ]);
  });
});

describe('PEV across continue-as-new', () => {
  const fx = usePevFixture();

  it('continues as new between todos and carries the todos, the prompts and the dedupe ledger into the new run', async () => {
    scriptTwoAdds(
      fx,
      { description: 'Add 2 and 3 again', args: { a: 2, b: 3 }, result: '5 again' },
      'Both sums are 5.',
    );
    const { result, lastRun, state, watched } = await withWorker(
      { activities: fx.pevActivities },
      async ({ client, taskQueue }) => {
        const agents = fx.agents(client, taskQueue);
        const id = await startPev(client, taskQueue, {
          task: 'Add 2 and 3 twice.',
          options: { session: { continueAsNewAfterTurns: 2 } },
        });
        const watched: string[] = [];
        for await (const item of agents.watch(id)) if (item.topic === 'events') watched.push(item.event.type);
        const res = await pevResult(client, id);
        const handle = client.workflow.getHandle(id);
        await saveHistoryIfRecording(handle, 'pev-continue-as-new');
        return { result: res, lastRun: await handle.fetchHistory(), state: await agents.state(id), watched };
      },
    );
    const started = lastRun.events?.[0]?.workflowExecutionStartedEventAttributes;
    expect(started?.continuedExecutionRunId).toBeTruthy();
    const scheduled = (lastRun.events ?? [])
      .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
      .filter(Boolean);
    expect(scheduled).not.toContain('preparePevPrompts');
    expect(scheduled).not.toContain('pinTools');
    expect(result).toMatchObject({ stopReason: 'completed', finalText: 'Both sums are 5.' });
    expect(result.todos.map((t) => [t.id, t.status])).toEqual([
      ['task-1', 'completed'],
      ['task-2', 'completed'],
    ]);
    expect(state.events.map((e) => e.type)).toContain('continued_as_new');
    // A watcher follows the rounds across the new run to the end.
    expect(watched).toEqual(state.events.map((e) => e.type));
    expect(fx.calls).toEqual(['add:2+3']);
    expect(result.pev.trace.map((e) => e.type)).toEqual([
      'planning_ended',
      'todo_ended',
      'tool_reused',
      'todo_ended',
      'verified',
    ]);
    expect(fx.fake.requests.map(roleOf)).toEqual([
      'planner',
      'executor',
      'executor',
      'executor',
      'executor',
      'verifier',
    ]);
  });
});
