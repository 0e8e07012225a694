import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { reply } from '../../src/testing/fake-provider';
import { useAgentFixture } from '../agent/agent-kit';
import { withGateway } from './gateway-kit';

// The 2026-07-28 Tasks extension's own schemas (ES modules, mapped for jest in jest.config.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const v2 = require('@modelcontextprotocol/ext-tasks/core/v2') as Record<string, z.ZodType>;

const Loose = z.looseObject({});

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

/** Reads the task until `status`; each answer must conform to the extension's GetTaskResult. */
async function untilStatus(client: Client, taskId: string, status: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 300; i++) {
    const task = await client.request({ method: 'tasks/get', params: { taskId } }, Loose);
    const checked = v2.GetTaskResultV2Schema.safeParse(task);
    if (!checked.success) throw new Error(`tasks/get does not conform: ${checked.error.message}`);
    if (task.status === status) return task;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`task ${taskId} never reached ${status}`);
}

describe('the MCP endpoint', () => {
  const fx = useAgentFixture();

  it('lists the agents as tools and runs one in a call, with progress notifications while it works', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }]), reply.text('The sum is 5.'));
    await withGateway(fx, {}, async (gateway) => {
      const client = await connect(gateway.url);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['reader', 'other']);
      expect(tools[0].execution?.taskSupport).toBe('optional');
      const progress: string[] = [];
      const result = await client.callTool(
        { name: 'reader', arguments: { task: 'Add 2 and 3.' } },
        CallToolResultSchema,
        {
          onprogress: (p) => progress.push(String(p.message)),
        },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'The sum is 5.' }]);
      expect(result.structuredContent).toMatchObject({ status: 'completed', stopReason: 'completed', turns: 2 });
      expect(progress).toEqual(expect.arrayContaining(['turn 1', 'add ran', 'turn 2']));
      await client.close();
    });
  });

  it('runs a call as a task that waits for approval as input_required, answered by tasks/update, then completes', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'old.log' }, id: 'toolu_m1' }]),
      reply.text('Deleted old.log.'),
    );
    await withGateway(fx, {}, async (gateway) => {
      const client = await connect(gateway.url);
      const created = await client.request(
        {
          method: 'tools/call',
          params: { name: 'reader', arguments: { task: 'Delete old.log.' }, task: { ttl: 60_000 } },
        },
        CreateTaskResultSchema,
      );
      const taskId = created.task.taskId;
      expect(taskId).toMatch(/^reader:/);
      expect(v2.CreateTaskResultV2Schema.safeParse(created).success).toBe(true);

      const waiting = await untilStatus(client, taskId, 'input_required');
      const request = (waiting.inputRequests as Record<string, { method: string; params: Record<string, unknown> }>)
        .toolu_m1;
      expect(request.method).toBe('elicitation/create');
      expect(request.params._meta).toMatchObject({
        'durable-agents/call': { tool: 'delete_file', args: { path: 'old.log' } },
      });
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe('input_required');
      expect(fx.calls).not.toContain('delete_file:old.log');

      const update = { taskId, inputResponses: { toolu_m1: { action: 'accept', content: { approved: true } } } };
      expect(
        v2.UpdateTaskRequestV2Schema.safeParse({ jsonrpc: '2.0', id: 1, method: 'tasks/update', params: update })
          .success,
      ).toBe(true);
      expect(
        v2.UpdateTaskResultV2Schema.safeParse(await client.request({ method: 'tasks/update', params: update }, Loose))
          .success,
      ).toBe(true);

      const done = await untilStatus(client, taskId, 'completed');
      expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Deleted old.log.' }] });
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(result.content).toEqual([{ type: 'text', text: 'Deleted old.log.' }]);
      expect(fx.calls).toContain('delete_file:old.log');
      await client.close();
    });
  });

  it('cancels a task: tasks/cancel ends the run with its result', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'delete_file', arguments: { path: 'c.log' } }]), reply.text('unreached'));
    await withGateway(fx, {}, async (gateway, agents) => {
      const client = await connect(gateway.url);
      const created = await client.request(
        {
          method: 'tools/call',
          params: { name: 'reader', arguments: { task: 'Delete c.log.' }, task: { ttl: 60_000 } },
        },
        CreateTaskResultSchema,
      );
      await untilStatus(client, created.task.taskId, 'input_required');
      const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
      expect(cancelled.status).toBe('cancelled');
      expect((await agents.result(created.task.taskId)).stopReason).toBe('cancelled');
      expect(fx.calls).not.toContain('delete_file:c.log');
      await expect(client.experimental.tasks.getTask('reader:no-such-task')).rejects.toThrow(/no task/);
      await client.close();
    });
  });

  it("asks the client the model's question as input_required, and the answer reaches the run", async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'ask_user', arguments: { question: 'Which file?' }, id: 'toolu_q1' }]),
      reply.text('You chose notes.md.'),
    );
    await withGateway(fx, {}, async (gateway) => {
      const client = await connect(gateway.url);
      const created = await client.request(
        {
          method: 'tools/call',
          params: { name: 'reader', arguments: { task: 'Ask me which file.' }, task: { ttl: 60_000 } },
        },
        CreateTaskResultSchema,
      );
      const taskId = created.task.taskId;
      const waiting = await untilStatus(client, taskId, 'input_required');
      expect(waiting.inputRequests).toMatchObject({
        toolu_q1: { method: 'elicitation/create', params: { message: 'Which file?' } },
      });
      await client.request(
        {
          method: 'tasks/update',
          params: { taskId, inputResponses: { toolu_q1: { action: 'accept', content: { answer: 'notes.md' } } } },
        },
        Loose,
      );
      const done = await untilStatus(client, taskId, 'completed');
      expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'You chose notes.md.' }] });
      expect(JSON.stringify(fx.fake.requests.at(-1)?.body)).toContain('notes.md');
      await client.close();
    });
  });
});
