import { reply } from '../../src/testing/fake-provider';
import { AgentClientError } from '../../src/client';
import { stateQuery } from '../../src/contracts/agent-workflows';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { agentCli } from '../kit/agent-cli';
import { PRIMARY, useAgentFixture, anthropicMessages, waitFor, waitForState } from './agent-kit';

/** Every text a request's messages carry (text blocks and tool results), in order. */
function texts(body: Record<string, unknown>): string[] {
  return anthropicMessages(body).flatMap((m) =>
    m.blocks.map((b) => {
      if (b.type === 'text') return String(b.text);
      if (b.type === 'tool_result') return `result(${String(b.tool_use_id)}): ${JSON.stringify(b.content)}`;
      if (b.type === 'tool_use') return `call(${String(b.id)}): ${String(b.name)}`;
      return String(b.type);
    }),
  );
}

describe('steering, follow-ups and stop', () => {
  const fx = useAgentFixture();

  it('steering during a three-tool turn skips the remaining tools and the next request carries every result and the steering text', async () => {
    fx.fake.script(
      reply.toolCalls([
        { name: 'slow_step', arguments: { label: 'A' }, id: 'toolu_A' },
        { name: 'slow_step', arguments: { label: 'B' }, id: 'toolu_B' },
        { name: 'slow_step', arguments: { label: 'C' }, id: 'toolu_C' },
      ]),
      reply.text('Understood, summarising instead.'),
    );
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Do the three steps.', model: PRIMARY });
      await waitFor(() => fx.calls.includes('slow_step:A'), 'step A to start');
      await agents.steer(id, 'Stop the steps and summarise what you have.', 'steer-1');
      await waitForState(agents, id, (s) => s.steeringQueued === 1);
      fx.latch.open();
      const res = await agents.result(id);
      const state = await agents.state(id);
      const watched = await agentCli(client, taskQueue).run('watch', id);
      const traced = await agentCli(client, taskQueue).run('trace', id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-steering');
      return { res, state, watched, traced };
    });
    expect(result.res).toMatchObject({ status: 'completed', finalText: 'Understood, summarising instead.', turns: 2 });
    expect(fx.calls).toEqual(['slow_step:A']);
    expect(fx.fake.requests).toHaveLength(2);
    expect(fx.fake.requests[1].error).toBeUndefined();
    const sent = texts(fx.fake.requests[1].body);
    expect(sent.find((t) => t.startsWith('result(toolu_A)'))).toContain('step A done');
    expect(sent.find((t) => t.startsWith('result(toolu_B)'))).toContain('Skipped: the user redirected');
    expect(sent.find((t) => t.startsWith('result(toolu_C)'))).toContain('Skipped: the user redirected');
    expect(sent[sent.length - 1]).toBe('Stop the steps and summarise what you have.');
    const steering = result.state.events.find((e) => e.type === 'steering');
    expect(steering).toMatchObject({ messageId: 'steer-1', skippedTools: ['slow_step', 'slow_step'] });
    // What the run was told shows where it was told, in watch and in trace.
    expect(result.watched).toContain(
      '[turn 1] steered: Stop the steps and summarise what you have.; skipped slow_step, slow_step',
    );
    expect(result.traced).toContain('    steered: Stop the steps and summarise what you have.');
  });

  it('a follow-up starts a new turn when the run would end, and a duplicate delivery is dropped', async () => {
    fx.fake.script(reply.text('First answer.', { delayMs: 1500 }), reply.text('Second answer.'));
    const { res, requests, watched } = await withWorker(
      { activities: fx.activities },
      async ({ client, taskQueue }) => {
        const agents = fx.agents(client, taskQueue);
        const id = await agents.start({ task: 'Answer me.', model: PRIMARY });
        await agents.followUp(id, 'And one more thing.', 'follow-1');
        await agents.followUp(id, 'And one more thing.', 'follow-1');
        const out = await agents.result(id);
        const watched = await agentCli(client, taskQueue).run('watch', id);
        await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-follow-up');
        return { res: out, requests: fx.fake.requests, watched };
      },
    );
    expect(watched).toContain('[turn 1] follow-up taken: And one more thing.');
    expect(res).toMatchObject({ status: 'completed', finalText: 'Second answer.', turns: 2 });
    expect(requests).toHaveLength(2);
    const sent = texts(requests[1].body);
    expect(sent.filter((t) => t === 'And one more thing.')).toHaveLength(1);
    expect(sent).toEqual(['Answer me.', 'First answer.', 'And one more thing.']);
  });

  it('stop ends the run after the current tool; every open tool call gets a result', async () => {
    fx.fake.script(
      reply.toolCalls([
        { name: 'slow_step', arguments: { label: 'A' } },
        { name: 'slow_step', arguments: { label: 'B' } },
      ]),
    );
    const { res, state } = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Two steps.', model: PRIMARY });
      await waitFor(() => fx.calls.includes('slow_step:A'), 'step A to start');
      await agents.stop(id, 'enough');
      await waitForState(agents, id, () => true);
      fx.latch.open();
      const out = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-stop');
      return { res: out, state: await agents.state(id) };
    });
    expect(res).toMatchObject({ status: 'stopped', stopReason: 'stopped', turns: 1 });
    expect(fx.calls).toEqual(['slow_step:A']);
    const kinds = state.messages.map((m) => m.kind);
    expect(kinds).toEqual(['user', 'assistant', 'tool_result', 'tool_result']);
    const callIds = state.messages[1].toolCallIds;
    expect(state.messages.slice(2).map((m) => m.toolCallId)).toEqual(callIds);
    expect(state.messages[3].isError).toBe(true);
  });
});

describe('approvals and client tools', () => {
  const fx = useAgentFixture();

  it('approve, the same approval twice, an unknown id, and reject with a reason each behave as specified', async () => {
    fx.fake.script(
      reply.toolCalls([
        { name: 'delete_file', arguments: { path: 'a.txt' }, id: 'toolu_one' },
        { name: 'delete_file', arguments: { path: 'b.txt' }, id: 'toolu_two' },
      ]),
      reply.text('One deleted, one kept.'),
    );
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        tools: { approve: ['delete_file'] },
        task: 'Delete both files.',
        model: PRIMARY,
      });
      const waiting = await waitForState(agents, id, (s) => s.pendingApprovals.length === 2);
      expect(waiting.status).toBe('awaiting_approval');
      expect(waiting.pendingApprovals.map(({ toolCallId, tool, args }) => ({ toolCallId, tool, args }))).toEqual([
        { toolCallId: 'toolu_one', tool: 'delete_file', args: { path: 'a.txt' } },
        { toolCallId: 'toolu_two', tool: 'delete_file', args: { path: 'b.txt' } },
      ]);
      const first = waiting.pendingApprovals[0];
      await expect(agents.approve(id, 'toolu_one')).resolves.toMatchObject({ state: 'approved' });
      const again = agents.approve(id, 'toolu_one', { argsHash: first.argsHash });
      await expect(again).rejects.toThrow(AgentClientError);
      await expect(again).rejects.toThrow(/already approved/);
      await expect(agents.approve(id, 'toolu_nope', { argsHash: first.argsHash })).rejects.toThrow(
        /no approval is pending for tool call toolu_nope/,
      );
      await expect(agents.approve(id, 'toolu_two', { argsHash: first.argsHash })).rejects.toThrow(
        /arguments of tool call toolu_two differ/,
      );
      expect(fx.calls).toEqual([]);
      await agents.reject(id, 'toolu_two', { reason: 'keep b.txt, it is needed' });
      const res = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-approvals');
      return { res, state: await agents.state(id) };
    });
    expect(out.res).toMatchObject({ status: 'completed', finalText: 'One deleted, one kept.' });
    expect(fx.calls).toEqual(['delete_file:a.txt']);
    const sent = texts(fx.fake.requests[1].body);
    expect(sent.find((t) => t.startsWith('result(toolu_one)'))).toContain('deleted a.txt');
    expect(sent.find((t) => t.startsWith('result(toolu_two)'))).toContain(
      'Rejected by the user: keep b.txt, it is needed',
    );
    const decided = out.state.events.filter((e) => e.type === 'approval_decided');
    expect(decided).toEqual([
      expect.objectContaining({ toolCallId: 'toolu_one', decision: 'approved', by: 'user' }),
      expect.objectContaining({
        toolCallId: 'toolu_two',
        decision: 'rejected',
        by: 'user',
        reason: 'keep b.txt, it is needed',
      }),
    ]);
  });

  it('approve with edited arguments runs the tool with the edit, and the model is told', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'important.txt' }, id: 'toolu_edit' }]),
      reply.text('Deleted the temp file.'),
    );
    const res = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ tools: { approve: ['delete_*'] }, task: 'Clean up.', model: PRIMARY });
      await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
      await agents.approve(id, 'toolu_edit', { args: { path: 'temp.txt' } });
      const r = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-approval-edited');
      return r;
    });
    expect(res.status).toBe('completed');
    expect(fx.calls).toEqual(['delete_file:temp.txt']);
    const sent = texts(fx.fake.requests[1].body).find((t) => t.startsWith('result(toolu_edit)'));
    expect(sent).toContain('edited the arguments');
    expect(sent).toContain('deleted temp.txt');
  });

  it('edited arguments that break the tool schema come back as an error result the model reads', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'x' }, id: 'toolu_bad' }]),
      reply.text('ok'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ tools: { approve: ['delete_file'] }, task: 'Clean up.', model: PRIMARY });
      await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
      await agents.approve(id, 'toolu_bad', { args: { path: 42 } });
      return agents.result(id);
    });
    expect(fx.calls).toEqual([]);
    const body = fx.fake.requests[1].body;
    const result = anthropicMessages(body)
      .flatMap((m) => m.blocks)
      .find((b) => b.type === 'tool_result');
    expect(result?.is_error).toBe(true);
  });

  it('a client tool pauses the run until its result is submitted', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'pick_photo', arguments: { album: 'holidays' }, id: 'toolu_pick' }]),
      reply.text('Nice photo.'),
    );
    const res = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Show me a photo.', model: PRIMARY });
      const waiting = await waitForState(agents, id, (s) => s.clientToolRequests.length === 1);
      expect(waiting.status).toBe('awaiting_client_tools');
      expect(waiting.clientToolRequests[0]).toEqual({
        toolCallId: 'toolu_pick',
        tool: 'pick_photo',
        args: { album: 'holidays' },
      });
      await agents.submitToolResult(id, 'toolu_pick', 'photo-42.jpg');
      await expect(agents.submitToolResult(id, 'toolu_pick', 'again')).rejects.toThrow(
        /already has a result|no client tool call|ended/,
      );
      const r = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-client-tool');
      return r;
    });
    expect(res).toMatchObject({ status: 'completed', finalText: 'Nice photo.' });
    expect(texts(fx.fake.requests[1].body).find((t) => t.startsWith('result(toolu_pick)'))).toContain('photo-42.jpg');
  });

  it('steering while the run waits for a client tool closes the call and the run goes on', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'pick_photo', arguments: { album: 'x' }, id: 'toolu_wait' }]),
      reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]),
      reply.text('Three, no photo needed.'),
    );
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Show a photo.', model: PRIMARY });
      await waitForState(agents, id, (s) => s.status === 'awaiting_client_tools');
      await agents.steer(id, 'Never mind the photo, add 1 and 2.');
      const result = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-steer-client-tool');
      return { result, state: await agents.state(id) };
    });
    expect(out.result).toMatchObject({ status: 'completed', finalText: 'Three, no photo needed.', turns: 3 });
    expect(out.state.clientToolRequests).toEqual([]);
    const sent = texts(fx.fake.requests[1].body);
    expect(sent.find((t) => t.startsWith('result(toolu_wait)'))).toContain('Skipped: the user redirected');
    expect(sent[sent.length - 1]).toBe('Never mind the photo, add 1 and 2.');
  });

  it('refuses state and decisions for an unknown run id with one clear line', async () => {
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      await expect(agents.state('agent-does-not-exist')).rejects.toThrow('no agent run with id "agent-does-not-exist"');
      await expect(client.workflow.getHandle('agent-does-not-exist').query(stateQuery)).rejects.toThrow();
    });
  });
});

describe('search attributes', () => {
  const fx = useAgentFixture();

  it('show the kind, model, status and a run waiting for approval, filterable by query', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'z' }, id: 'toolu_sa' }], {
        usage: { input: 1000, output: 100 },
      }),
      reply.text('ok'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ tools: { approve: ['delete_file'] }, task: 'Delete z.', model: PRIMARY });
      const find = async (query: string) => {
        for (let i = 0; i < 100; i++) {
          for await (const wf of client.workflow.list({ query: `WorkflowId = '${id}' AND ${query}` })) return wf;
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error(`no run matched ${query}`);
      };
      await find(
        `DurableAgentAwaitingApproval = true AND DurableAgentStatus = 'awaiting_approval' AND DurableAgentKind = 'react' AND DurableAgentModel = '${PRIMARY}'`,
      );
      await agents.approve(id, 'toolu_sa');
      await agents.result(id);
      const done = await find(
        `DurableAgentStatus = 'completed' AND DurableAgentPhase = 'done' AND DurableAgentAwaitingApproval = false`,
      );
      const cost = done.typedSearchAttributes.getAll().find((p) => p.key.name === 'DurableAgentCostUsd')?.value;
      expect(cost).toBeGreaterThan(0);
      const listed = await agents.list(200);
      expect(listed.find((r) => r.id === id)).toMatchObject({
        kind: 'react',
        agentStatus: 'completed',
        model: PRIMARY,
        status: 'COMPLETED',
      });
    });
  });
});
