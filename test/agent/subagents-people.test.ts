/**
 * People and sub-agents: what waits for a person in a child run (an approval, a client tool call)
 * shows in the parent's own state and current details, with the child that holds it, at any depth,
 * and is decided or answered through the parent.
 */
import type { AgentStateView } from '../../src/contracts/agent-run';
import type { RunClientTool } from '../../src/contracts/tool-catalog';
import { reply, type FakeStep } from '../../src/testing/fake-provider';
import { historyName, saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { currentDetailsOf, toolResultTexts, useAgentFixture, waitForState } from './agent-kit';
import { parentId, startParent, who } from './subagents-kit';

const ASK_USER: RunClientTool = {
  name: 'choose_city',
  description: 'Asks the person at the keyboard a question and returns their answer.',
  parameters: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
};

describe('people and sub-agents', () => {
  const fx = useAgentFixture();

  it("shows a grandchild's pending approval in the parent's state and details, and takes the decision through the parent", async () => {
    fx.fake.respond((request): FakeStep => {
      const { agent, task, answers } = who(request);
      if (agent === 'parent')
        return answers === 0
          ? reply.toolCalls([{ name: 'researcher', arguments: { task: 'delegate it' }, id: 'toolu_r1' }])
          : reply.text('Noted.');
      if (task.startsWith('delegate it'))
        return answers === 0
          ? reply.toolCalls([{ name: 'researcher', arguments: { task: 'note it' }, id: 'toolu_r2' }])
          : reply.text('my helper noted it');
      return answers === 0
        ? reply.toolCalls([{ name: 'write_note', arguments: { text: 'hello' }, id: 'toolu_note' }])
        : reply.text('wrote it');
    });
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await startParent(agents, {
        tools: { approve: ['write_note'] },
        id: parentId('subagents-approval-parent'),
      });
      const childId = `${id}/researcher-toolu_r1`;
      const grandchildId = `${childId}/researcher-toolu_r2`;
      const waiting = await waitForState(agents, id, (s) => (s.childApprovals ?? []).length > 0);
      expect(fx.calls).toEqual([]);
      const details = await currentDetailsOf(client.workflow.getHandle(id));
      expect(await agents.pendingApprovals(id)).toEqual([
        expect.objectContaining({ runId: grandchildId, toolCallId: 'toolu_note', tool: 'write_note' }),
      ]);
      await agents.approve(id, 'toolu_note');
      const result = await agents.result(id);
      const after = await agents.state(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'subagents-approval-parent');
      // It starts a child of its own: replayed under its own id, whose `/` its file name writes as `~`.
      await saveHistoryIfRecording(client.workflow.getHandle(childId), historyName(childId));
      await saveHistoryIfRecording(client.workflow.getHandle(grandchildId), 'subagents-child-approval');
      return { grandchildId, waiting, details, result, after };
    });
    expect(out.waiting.childApprovals).toEqual([
      {
        runId: out.grandchildId,
        toolCallId: 'toolu_note',
        tool: 'write_note',
        args: { text: 'hello' },
        argsHash: expect.any(String),
      },
    ]);
    expect(out.waiting.pendingApprovals).toEqual([]);
    expect(out.details).toContain(
      `Waiting for approval** of \`write_note\` (call \`toolu_note\`) in the sub-agent run`,
    );
    expect(out.details).toContain(out.grandchildId);
    expect(out.details).toContain(`durable-agents approve ${out.result.id} toolu_note`);
    expect(fx.calls).toEqual(['write_note:hello']);
    expect(out.result).toMatchObject({ status: 'completed', finalText: 'Noted.' });
    expect(out.after.childApprovals).toBeUndefined();
  });

  it("lets a child call the parent's client tools, shows the call in the parent's state and takes the result through the parent", async () => {
    fx.fake.respond((request): FakeStep => {
      const { agent, answers } = who(request);
      if (agent === 'parent')
        return answers === 0
          ? reply.toolCalls([{ name: 'researcher', arguments: { task: 'ask for a city' }, id: 'toolu_r' }])
          : reply.text('The user chose Lyon.');
      return answers === 0
        ? reply.toolCalls([{ name: 'choose_city', arguments: { question: 'Which city?' }, id: 'toolu_ask' }])
        : reply.text('Lyon');
    });
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await startParent(agents, {
        id: parentId('subagents-client-tool-parent'),
        tools: { clientTools: [ASK_USER] },
      });
      const childId = `${id}/researcher-toolu_r`;
      const waiting = await waitForState(agents, id, (s) => (s.childClientToolRequests ?? []).length > 0);
      const details = await currentDetailsOf(client.workflow.getHandle(id));
      await agents.submitToolResult(id, 'toolu_ask', 'Lyon');
      const result = await agents.result(id);
      const child = await agents.state(childId);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'subagents-client-tool-parent');
      await saveHistoryIfRecording(client.workflow.getHandle(childId), 'subagents-child-client-tool');
      return { childId, waiting, details, result, child };
    });
    expect(out.waiting.childClientToolRequests).toEqual([
      { runId: out.childId, toolCallId: 'toolu_ask', tool: 'choose_city', args: { question: 'Which city?' } },
    ]);
    expect(out.waiting.clientToolRequests).toEqual([]);
    expect(out.details).toContain(
      "Waiting for the client's result** of `choose_city` (call `toolu_ask`) in the sub-agent run",
    );
    expect(out.result).toMatchObject({ status: 'completed', finalText: 'The user chose Lyon.' });
    const [answer] = await toolResultTexts(fx, out.child as AgentStateView);
    expect(answer).toContain('Lyon');
    // The child offered the parent's client tool to its model.
    const childRequest = fx.fake.requests.find((r) => who(r).agent === 'researcher');
    expect((childRequest?.body.tools as { name: string }[]).map((t) => t.name)).toContain('choose_city');
  });
});
