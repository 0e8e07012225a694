import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { reply } from '../../src/testing/fake-provider';
import type { PevAgentResult, PevStateView } from '../../src/contracts/pev-run';
import { AgentClientError } from '../../src/client/client-errors';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { waitForState } from '../agent/agent-kit';
import { PRIMARY, answer, messageText, usePevFixture, roleOf, systemOf, waitFor } from './pev-kit';

const EXAMPLE_PROMPTS = path.join(__dirname, '../../prompts/examples/workspace-assistant');

describe('PEV options, prompts and follow-ups on a real server', () => {
  const fx = usePevFixture();

  it('loads business context per role from Markdown into each role system prompt (started through the client)', async () => {
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'List the workspace' }]),
      answer.executed('nothing to list'),
      answer.verified('The workspace is empty.'),
    );
    const { result, state } = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'What is in the workspace?',
        kind: 'pev',
        model: PRIMARY,
        tools: {},
        pev: { promptsDir: EXAMPLE_PROMPTS },
      });
      const res = (await agents.result(id)) as PevAgentResult;
      return { result: res, state: (await agents.state(id)) as PevStateView };
    });
    expect(result).toMatchObject({
      kind: 'pev',
      finalText: 'The workspace is empty.',
      todos: [expect.objectContaining({ id: 'task-1', status: 'completed' })],
    });
    const [planner, executor, verifier] = fx.fake.requests.map(systemOf);
    expect(planner).toContain('# Workspace assistant: planning');
    expect(executor).toContain('# Workspace assistant: execution');
    expect(verifier).toContain('# Workspace assistant: verification');
    expect(planner).not.toContain('{{businessContext}}');
    expect(state.pev).toMatchObject({ phase: 'done', cycle: 1 });
    expect(state.plan).toEqual([{ id: 'task-1', title: 'List the workspace (completed)', done: true }]);
  });

  it('refuses bad PEV options before starting and fails a run whose prompts directory is missing with an actionable error', async () => {
    await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      await expect(
        agents.start({
          task: 't',
          kind: 'pev',
          model: PRIMARY,
          pev: { limits: { maxCycles: 0 }, models: { planner: 'gpt' } },
        }),
      ).rejects.toThrow(
        new AgentClientError(
          'invalid run options: pev.limits.maxCycles must be a positive integer, got 0; pev.models.planner: "gpt" is ' +
            'not a model spec: expected provider/model, e.g. anthropic/claude-sonnet-4-6, openai/gpt-5-mini, ' +
            'minimax/MiniMax-M2.5 or openai-compatible/llama3.1',
        ),
      );
      const id = await agents.start({
        task: 't',
        kind: 'pev',
        model: PRIMARY,
        pev: { promptsDir: '/nonexistent/prompts' },
      });
      const err = await client.workflow
        .getHandle(id)
        .result()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const activityFailure = (err as WorkflowFailedError).cause;
      expect(activityFailure?.cause).toMatchObject({ type: 'PevPromptsError', nonRetryable: true });
      expect(String((activityFailure?.cause as Error | undefined)?.message)).toMatch(
        /Prompts directory \/nonexistent\/prompts does not exist/,
      );
    });
    expect(fx.fake.requests).toHaveLength(0);
  });

  it('Plan mode plans once, executes every step and ends after one verifier pass, even when planner and verifier want more', async () => {
    fx.fake.script(
      answer.plan(
        [
          { id: 'step-1', description: 'Add 1 and 2' },
          { id: 'step-2', description: 'Add 3 and 4' },
        ],
        true,
      ),
      answer.executed('3'),
      answer.executed('7'),
      answer.improve('Also multiply them'),
    );
    const result = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Add 1+2 and 3+4.',
        kind: 'pev',
        model: PRIMARY,
        tools: {},
        pev: { mode: 'plan' },
      });
      const res = (await agents.result(id)) as PevAgentResult;
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-plan-mode');
      return res;
    });
    expect(fx.fake.requests.map(roleOf)).toEqual(['planner', 'executor', 'executor', 'verifier']);
    expect(result.pev).toMatchObject({ mode: 'plan', cycles: 1, endReason: 'max_cycles' });
    expect(result.pev.trace[0]).toMatchObject({ type: 'planning_ended', reason: 'max_planning_rounds' });
    expect(result.finalText).toBe('Add 1 and 2\n3\n\nAdd 3 and 4\n7\n\nStill open:\n- Also multiply them');
  });

  it('a follow-up sent during the rounds becomes the next request once the verifier has answered', async () => {
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'Run the slow step' }]),
      reply.toolCalls([{ name: 'slow_step', arguments: { label: 'a' } }]),
      answer.executed('slow step a done'),
      answer.verified('Step a is done.'),
      answer.plan([{ id: 'task-2', description: 'Add 1 and 1' }]),
      answer.executed('2'),
      answer.verified('1 + 1 = 2'),
    );
    const result = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Run the slow step.', kind: 'pev', model: PRIMARY, tools: {} });
      await waitFor(() => fx.calls.includes('slow_step:a'), 'the slow step to start');
      await agents.followUp(id, 'Now add 1 and 1.');
      await waitForState(agents, id, (s) => s.followUpsQueued === 1);
      fx.latch.open();
      const res = (await agents.result(id)) as PevAgentResult;
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-follow-up');
      return res;
    });
    expect(result.finalText).toBe('1 + 1 = 2');
    expect(result.todos.map((t) => t.id)).toEqual(['task-2']);
    expect(messageText(fx.fake.requests[4])).toContain('## User request\nNow add 1 and 1.');
    expect(messageText(fx.fake.requests[4])).toContain('Step a is done.');
  });

  it('a follow-up that comes while a run that has answered waits for one (idleWaitMs) is its next request', async () => {
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'Add 1 and 2' }]),
      answer.executed('3'),
      answer.verified('1 + 2 = 3'),
      answer.plan([{ id: 'task-2', description: 'Add 1 and 1' }]),
      answer.executed('2'),
      answer.verified('1 + 1 = 2'),
    );
    const result = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        session: { idleWaitMs: 60_000 },
        task: 'Add 1 and 2.',
        kind: 'pev',
        model: PRIMARY,
        tools: {},
      });
      await waitForState(agents, id, (s) => s.status === 'awaiting_follow_up');
      await agents.followUp(id, 'Now add 1 and 1.');
      await waitFor(() => fx.fake.requests.length === 6, 'the verifier of the follow-up');
      await waitForState(agents, id, (s) => s.status === 'awaiting_follow_up');
      await agents.stop(id);
      const res = (await agents.result(id)) as PevAgentResult;
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-idle-follow-up');
      return res;
    });
    expect(result).toMatchObject({ stopReason: 'stopped', finalText: '1 + 1 = 2' });
    expect(result.todos.map((t) => t.id)).toEqual(['task-2']);
    expect(messageText(fx.fake.requests[3])).toContain('## User request\nNow add 1 and 1.');
  });
});
