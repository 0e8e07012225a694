import { AgentCard, TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { textPart as text } from '../../src/gateway/a2a-tasks';
import { reply } from '../../src/testing/fake-provider';
import { useAgentFixture, waitForState } from '../agent/agent-kit';
import { data, message, send, textOf } from './a2a-kit';
import { withGateway } from './gateway-kit';

const FINAL = 'The sum of 2 and 3 is 5, as the add tool said; nothing else was needed here.';

describe('the A2A endpoint', () => {
  const fx = useAgentFixture();

  it('serves a card with a skill per agent and answers a message with the completed task', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }]), reply.text(FINAL));
    await withGateway(fx, {}, async (gateway) => {
      const raw = await (await fetch(`${gateway.url}/.well-known/agent-card.json`)).json();
      const card = AgentCard.fromJSON(raw);
      expect(card.skills.map((s) => s.id)).toEqual(['reader', 'other']);
      expect(card.supportedInterfaces[0]).toMatchObject({
        url: `${gateway.url}/a2a`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      });
      const client = await new ClientFactory().createFromUrl(gateway.url);
      const task = (await client.sendMessage(send(message([text('Add 2 and 3.')])))) as Task;
      expect(task.id).toMatch(/^reader:/);
      expect(task.contextId).toBe(task.id);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(task.status?.message?.parts)).toBe(FINAL);
      expect(textOf(task.artifacts[0]?.parts)).toBe(FINAL);
      const read = await client.getTask({ tenant: '', id: task.id });
      expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });
  });

  it('streams a task to INPUT_REQUIRED for an approval; the answer in a message to the task goes on to the end', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'old.log' }, id: 'toolu_a1' }], {
        text: 'Deleting old.log.',
      }),
      reply.text('Deleted old.log.'),
    );
    await withGateway(fx, {}, async (gateway) => {
      const client = await new ClientFactory().createFromUrl(gateway.url);
      const first: StreamResponse[] = [];
      for await (const u of client.sendMessageStream(send(message([text('Delete old.log.')])))) first.push(u);
      expect(first[0].payload?.$case).toBe('task');
      const last = first.at(-1)!.payload;
      expect(last?.$case).toBe('statusUpdate');
      const status = last?.$case === 'statusUpdate' ? last.value : undefined;
      expect(status?.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const waiting = status?.status?.message?.parts.find((p) => p.content?.$case === 'data')?.content;
      expect(waiting?.$case === 'data' && waiting.value.inputs[0]).toMatchObject({
        kind: 'approval',
        tool: 'delete_file',
        toolCallId: 'toolu_a1',
        args: { path: 'old.log' },
      });
      const streamedText = first
        .flatMap((u) => (u.payload?.$case === 'artifactUpdate' ? [textOf(u.payload.value.artifact?.parts)] : []))
        .join('');
      expect(streamedText).toBe('Deleting old.log.');
      const taskId = status!.taskId;
      expect((await client.getTask({ tenant: '', id: taskId })).status?.state).toBe(
        TaskState.TASK_STATE_INPUT_REQUIRED,
      );

      const rest: StreamResponse[] = [];
      const answer = message([data({ approved: true })], { taskId, contextId: status!.contextId });
      for await (const u of client.sendMessageStream(send(answer))) rest.push(u);
      const end = rest.at(-1)!.payload;
      expect(end?.$case === 'statusUpdate' && end.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(fx.calls).toContain('delete_file:old.log');
      const answerText = rest
        .flatMap((u) =>
          u.payload?.$case === 'artifactUpdate' && !u.payload.value.lastChunk
            ? [textOf(u.payload.value.artifact?.parts)]
            : [],
        )
        .join('');
      expect(answerText).toBe('Deleted old.log.');
    });
  });

  it('cancels a task (the run ends with its result), and a new message that references it goes on from its conversation', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'b.log' } }]),
      reply.text('The file was b.log.'),
    );
    await withGateway(fx, {}, async (gateway, agents) => {
      const client = await new ClientFactory().createFromUrl(gateway.url);
      const started = (await client.sendMessage(send(message([text('Delete b.log.')]), 'reader', true))) as Task;
      await waitForState(agents, started.id, (s) => s.pendingApprovals.length === 1);
      const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
      expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect((await agents.result(started.id)).stopReason).toBe('cancelled');

      const next = (await client.sendMessage(
        send(
          message([text('Which file did I ask about?')], {
            contextId: started.contextId,
            referenceTaskIds: [started.id],
          }),
        ),
      )) as Task;
      expect(next.id).not.toBe(started.id);
      expect(next.contextId).toBe(started.id);
      expect(textOf(next.status?.message?.parts)).toBe('The file was b.log.');
      expect(JSON.stringify(fx.fake.requests.at(-1)?.body)).toContain('Delete b.log.');
      await expect(client.getTask({ tenant: '', id: 'reader:no-such-task' })).rejects.toThrow(/no task/);
    });
  });
});
