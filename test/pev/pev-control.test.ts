import { defineSearchAttributeKey } from '@temporalio/common';
import { AgentClient } from '../../src/client';
import type { AgentEvent } from '../../src/contracts/agent-events';
import { reply } from '../../src/testing/fake-provider';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { waitForState } from '../agent/agent-kit';
import { AGENT_SEARCH_ATTRIBUTES as SA } from '../../src/contracts/search-attributes';
import {
  FALLBACK,
  PRIMARY,
  answer,
  messageText,
  usePevFixture,
  pevProgress,
  pevResult,
  roleOf,
  startPev,
  waitFor,
} from './pev-kit';

const PHASE = defineSearchAttributeKey('DurableAgentPhase', 'KEYWORD');

describe('PEV limits, steering and approvals on a real server', () => {
  const fx = usePevFixture();

  it('ends planning at the planning-round limit with its own reason and executes the last plan', async () => {
    fx.fake.script(
      answer.plan([{ id: 'draft', description: 'Add 1 and 1' }], true),
      answer.plan([{ id: 'task-1', description: 'Add 1 and 1' }], true),
      answer.executed('1 + 1 = 2'),
      answer.verified('2'),
    );
    const result = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const id = await startPev(client, taskQueue, { task: 'Add 1 and 1.', pev: { limits: { maxPlanningRounds: 2 } } });
      const res = await pevResult(client, id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-planning-limit');
      return res;
    });
    expect(result.pev.trace[0]).toEqual({
      type: 'planning_ended',
      cycle: 1,
      rounds: 2,
      reason: 'max_planning_rounds',
      todoIds: ['task-1'],
    });
    expect(result).toMatchObject({ stopReason: 'completed', finalText: '2' });
    expect(messageText(fx.fake.requests[1])).toContain('Planning round 2 of at most 2');
  });

  it('ends a todo at the executor-round limit, and the run at the cycle limit, each with its own reason', async () => {
    let attribute: unknown;
    let done: AgentEvent | undefined;
    const notYet = answer.executed('still working', {
      taskCompleted: false,
      shouldContinue: true,
      nextAction: 'continue',
    });
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'Add 4 and 4' }]),
      reply.toolCalls([{ name: 'add', arguments: { a: 4, b: 4 } }]),
      notYet,
      notYet,
      answer.improve('Report the sum'),
    );
    const result = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const id = await startPev(client, taskQueue, {
        task: 'Add 4 and 4.',
        pev: { limits: { maxExecutorRounds: 3, maxCycles: 1 } },
      });
      const res = await pevResult(client, id);
      attribute = (await client.workflow.getHandle(id).describe()).typedSearchAttributes.get(SA.stopReason);
      done = (await new AgentClient(client, taskQueue).state(id)).events.at(-1);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-executor-and-cycle-limits');
      return res;
    });
    expect(result.todos).toEqual([
      expect.objectContaining({
        id: 'task-1',
        status: 'failed',
        endReason: 'max_executor_rounds',
        rounds: 3,
        result: 'still working',
      }),
    ]);
    expect(result).toMatchObject({
      status: 'completed',
      stopReason: 'max_cycles',
      pev: { cycles: 1, verified: false, endReason: 'max_cycles' },
    });
    // The search attribute and the run's last event name the end as the result does, so
    // `list --stop-reason max_cycles` finds it and `watch` ends on it.
    expect(attribute).toBe('max_cycles');
    expect(done).toMatchObject({ type: 'done', stopReason: 'max_cycles' });
    expect(result.finalText).toContain('Still open:\n- Report the sum');
    expect(fx.fake.requests.map(roleOf)).toEqual(['planner', 'executor', 'executor', 'executor', 'verifier']);
    expect(fx.fake.pending()).toBe(0);
  });

  it('steering during the executor phase reaches the executor', async () => {
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'Run the slow step' }]),
      reply.toolCalls([{ name: 'slow_step', arguments: { label: 'one' } }]),
      answer.executed('slow step done, steering noted'),
      answer.verified('done'),
    );
    const result = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await startPev(client, taskQueue, { task: 'Run the slow step.' });
      await waitFor(() => fx.calls.includes('slow_step:one'), 'the slow step to start');
      const progress = await pevProgress(client, id);
      expect(progress).toMatchObject({
        phase: 'executing',
        cycle: 1,
        round: 1,
        currentTodoId: 'task-1',
        todos: [expect.objectContaining({ id: 'task-1', status: 'executing' })],
      });
      expect((await client.workflow.getHandle(id).describe()).typedSearchAttributes.get(PHASE)).toBe('executing');
      await agents.steer(id, 'Use label two from now on.');
      await waitForState(agents, id, (s) => s.steeringQueued === 1);
      fx.latch.open();
      const res = await pevResult(client, id);
      expect((await client.workflow.getHandle(id).describe()).typedSearchAttributes.get(PHASE)).toBe('done');
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-steering');
      return res;
    });
    expect(result.finalText).toBe('done');
    const executorRound2 = fx.fake.requests[2];
    expect(roleOf(executorRound2)).toBe('executor');
    expect(messageText(executorRound2)).toContain('Use label two from now on.');
    expect(messageText(fx.fake.requests[1])).not.toContain('Use label two');
  });

  it('an approval-gated tool in a todo waits for approval, then runs', async () => {
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'Delete old.txt' }]),
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'old.txt' } }]),
      answer.executed('deleted old.txt'),
      answer.verified('old.txt is deleted'),
    );
    const result = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await startPev(client, taskQueue, {
        task: 'Delete old.txt.',
        options: { tools: { approve: ['delete_file'] } },
      });
      const waiting = await waitForState(agents, id, (s) => s.pendingApprovals.length === 1);
      expect(waiting.status).toBe('awaiting_approval');
      expect((waiting as typeof waiting & { pev: { phase: string; currentTodoId: string } }).pev).toMatchObject({
        phase: 'executing',
        currentTodoId: 'task-1',
      });
      expect(fx.calls).toEqual([]);
      await agents.approve(id, waiting.pendingApprovals[0].toolCallId);
      const res = await pevResult(client, id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-approval');
      return res;
    });
    expect(fx.calls).toEqual(['delete_file:old.txt']);
    expect(result).toMatchObject({ stopReason: 'completed', finalText: 'old.txt is deleted' });
  });

  it('a stop during the executor phase ends the run with stopped', async () => {
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'Run the slow step' }]),
      reply.toolCalls([{ name: 'slow_step', arguments: { label: 'x' } }]),
    );
    const result = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await startPev(client, taskQueue, { task: 'Run the slow step.' });
      await waitFor(() => fx.calls.includes('slow_step:x'), 'the slow step to start');
      await agents.stop(id, 'enough');
      fx.latch.open();
      return pevResult(client, id);
    });
    expect(result).toMatchObject({ status: 'stopped', stopReason: 'stopped' });
    expect(result.todos[0]).toMatchObject({ id: 'task-1', status: 'executing' });
    expect(fx.fake.requests).toHaveLength(2);
  });

  it("a role on its own model fails over down the run's chain without moving the other roles", async () => {
    const executorModel = 'anthropic/claude-haiku-4-5';
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'Add 1 and 2' }]),
      reply.error(529),
      answer.executed('3'),
      answer.verified('1 + 2 = 3'),
    );
    const { result, state } = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await startPev(client, taskQueue, {
        task: 'Add 1 and 2.',
        options: { model: { fallbacks: [FALLBACK] } },
        pev: { models: { executor: executorModel } },
      });
      const res = await pevResult(client, id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-role-failover');
      return { result: res, state: await agents.state(id) };
    });
    expect(result).toMatchObject({ stopReason: 'completed', finalText: '1 + 2 = 3', model: PRIMARY });
    expect(fx.fake.requests.map((r) => `${r.api}:${String(r.body.model)}`)).toEqual([
      'anthropic:claude-sonnet-4-6',
      'anthropic:claude-haiku-4-5',
      'openai:gpt-4o-mini',
      'anthropic:claude-sonnet-4-6',
    ]);
    expect(state.events.filter((e) => e.type === 'provider_switch')).toEqual([
      expect.objectContaining({ fromModel: executorModel, toModel: FALLBACK }),
    ]);
  });

  it('the run-wide turn limit counts the turns of every role', async () => {
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'Add 1 and 2' }]),
      reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]),
    );
    const result = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const id = await startPev(client, taskQueue, { task: 'Add 1 and 2.', options: { limits: { maxTurns: 2 } } });
      return pevResult(client, id);
    });
    expect(result).toMatchObject({ status: 'completed', stopReason: 'max_turns', turns: 2 });
    expect(result.todos[0]).toMatchObject({ id: 'task-1', status: 'executing', rounds: 1 });
    expect(fx.calls).toEqual(['add:1+2']);
  });
});
