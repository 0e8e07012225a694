import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { AGENT_FAILURE } from '../../src/contracts/failure-types';
import type { AgentResult } from '../../src/contracts/agent-run';
import type { PevAgentResult } from '../../src/contracts/pev-run';
import { freePort } from '../../src/server/ports';
import { reply } from '../../src/testing/fake-provider';
import type { StartAgentOptions } from '../../src/client';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture, waitForState } from './agent-kit';
import { answer, startPev, usePevFixture } from '../pev/pev-kit';

const { EventType } = temporal.api.enums.v1;

/** How a closed run ended: its workflow status, its failure (if it failed) and what the client reads as its result. */
async function closed(client: Client, handle: WorkflowHandle) {
  const failure = await handle.result().then(
    () => undefined,
    (err: unknown) => err,
  );
  const cause = failure instanceof WorkflowFailedError ? failure.cause : undefined;
  const { status } = await handle.describe();
  const failedIds: string[] = [];
  for await (const run of client.workflow.list({
    query: `ExecutionStatus="Failed" AND WorkflowId="${handle.workflowId}"`,
  }))
    failedIds.push(run.workflowId);
  return { status: status.name, cause, failedIds };
}

describe('a run that ends in error fails its workflow', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-failed-mcp-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  /** A stdio server of the worker whose command does not exist, and an HTTP one nothing listens for. */
  const notesCommand = path.join(dir, 'notes-mcp-server');
  const fx = useAgentFixture(
    {},
    {
      mcp: async () => ({
        mcpServers: [
          { name: 'notes', config: { command: notesCommand, args: [] } },
          { name: 'search', config: { url: `http://127.0.0.1:${await freePort()}/mcp` } },
        ],
      }),
    },
  );

  async function run(options: Omit<StartAgentOptions, 'task' | 'model'>, history?: string) {
    return withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Work on it.', model: PRIMARY, ...options });
      const handle = client.workflow.getHandle(id);
      const end = await closed(client, handle);
      if (history) await saveHistoryIfRecording(handle, history);
      const result = await agents.result(id);
      return { id, handle, ...end, result, state: await agents.state(id) };
    });
  }

  it('a 401 closes the run as a failed workflow whose non-retryable failure carries the result the client reads', async () => {
    fx.fake.script(reply.error(401));
    const { id, status, cause, failedIds, result, state } = await run({}, 'agent-failed-run');
    expect(status).toBe('FAILED');
    // The failed call was the one to pin the run's tools: the task it wrote first is still recorded.
    expect(state.messages.map((m) => [m.seq, m.kind])).toEqual([[0, 'user']]);
    expect(failedIds).toEqual([id]);
    expect(cause).toBeInstanceOf(ApplicationFailure);
    const failure = cause as ApplicationFailure;
    expect(failure).toMatchObject({ type: AGENT_FAILURE.runFailed, nonRetryable: true });
    expect(result).toMatchObject({
      id,
      status: 'failed',
      stopReason: 'error',
      turns: 1,
      error: { type: 'LlmAuthentication', retryable: false },
    });
    expect(failure.message).toBe(result.error?.message);
    expect(failure.details).toEqual([result]);
  });

  it('stopped and limit-reached runs stay completed, with their stop reason', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 1 } }]));
    const limited = await run({ limits: { maxTurns: 1 } });
    expect(limited).toMatchObject({ status: 'COMPLETED', failedIds: [], result: { stopReason: 'max_turns' } });

    fx.fake.script(reply.toolCalls([{ name: 'delete_file', arguments: { path: 'a.txt' } }]));
    const stopped = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ tools: { approve: ['delete_file'] }, task: 'Clean up.', model: PRIMARY });
      await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
      await agents.stop(id);
      return { ...(await closed(client, client.workflow.getHandle(id))), result: await agents.result(id) };
    });
    expect(stopped).toMatchObject({
      status: 'COMPLETED',
      failedIds: [],
      result: { status: 'stopped', stopReason: 'stopped' },
    });
  });

  describe('an MCP server that cannot be started', () => {
    it('whose command does not exist ends the run in its first step, naming the server and why, before any model call', async () => {
      const command = notesCommand;
      const { status, cause, result, state, handle } = await run(
        { tools: { mcpServers: ['notes'] } },
        'agent-mcp-server-missing-at-first-call',
      );
      expect(status).toBe('FAILED');
      expect((cause as ApplicationFailure).type).toBe(AGENT_FAILURE.runFailed);
      expect(result).toMatchObject({
        status: 'failed',
        stopReason: 'error',
        turns: 0,
        error: { type: AGENT_FAILURE.mcpConfig, retryable: false },
      });
      expect(result.error?.message).toBe(
        `MCP server "notes" cannot start: its command "${command}" was not found on the worker (spawn ${command} ENOENT)`,
      );
      expect(fx.fake.requests).toHaveLength(0);
      // The task is written first when the tools are pinned: the transcript still shows what was asked.
      expect(state.messages.map((m) => [m.seq, m.kind])).toEqual([[0, 'user']]);
      expect(state.events.find((e) => e.type === 'error')).toMatchObject({ failureType: AGENT_FAILURE.mcpConfig });
      // Pinned by the first model call's activity, before any request, and not retried: trying again
      // cannot find the command. Its one attempt failed with the pin's failure.
      const history = await handle.fetchHistory();
      const calls = history.events!.flatMap((e) =>
        e.activityTaskScheduledEventAttributes?.activityType?.name ? [e.activityTaskScheduledEventAttributes] : [],
      );
      expect(calls.map((c) => c.activityType?.name)).toEqual(['callModel']);
      const failed = history.events!.flatMap((e) => e.activityTaskFailedEventAttributes ?? []);
      expect(failed).toEqual([
        expect.objectContaining({
          failure: expect.objectContaining({
            applicationFailureInfo: expect.objectContaining({ type: AGENT_FAILURE.mcpConfig, nonRetryable: true }),
          }),
        }),
      ]);
      expect(history.events!.filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)).toEqual([
        expect.objectContaining({ activityTaskStartedEventAttributes: expect.objectContaining({ attempt: 1 }) }),
      ]);
    });

    it('that does not answer fails pinning as retryable, so the activity tries again before the run ends', async () => {
      const pin = (fx.activities as { pinTools: (input: object) => Promise<unknown> }).pinTools;
      const failure = await pin({
        conversationId: 'pin-unreachable',
        selection: { mcpServers: ['search'] },
      }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure).toMatchObject({ type: AGENT_FAILURE.mcpConnection, nonRetryable: false });
      expect((failure as Error).message).toMatch(/^Cannot connect to MCP server "search": /);
    });
  });
});

describe('a pev run that ends in error fails its workflow', () => {
  const fx = usePevFixture();

  it('with the pev result (todos, trace) in its failure', async () => {
    fx.fake.script(answer.plan([{ id: 'step-1', description: 'Add 1 and 1' }]), reply.error(401));
    const { cause, status } = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const id = await startPev(client, taskQueue, { task: 'Add 1 and 1.' });
      const handle = client.workflow.getHandle(id);
      const end = await closed(client, handle);
      await saveHistoryIfRecording(handle, 'pev-failed-run');
      return end;
    });
    expect(status).toBe('FAILED');
    const [result] = (cause as ApplicationFailure).details as [PevAgentResult & AgentResult];
    expect(result).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      error: { type: 'LlmAuthentication' },
      todos: [expect.objectContaining({ id: 'step-1', status: 'executing' })],
      pev: { verified: false },
    });
  });
});
