/**
 * Big input, clear answer: payloads over the server's limit are refused at once with the way
 * round it, and `run --task-file` (or stdin) passes a task of any size by reference.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { AgentClient, PayloadTooLargeError } from '../../src/client';
import type { AgentWorkflowInput } from '../../src/contracts/agent-workflows';
import { reply } from '../../src/testing/fake-provider';
import { runCli } from '../kit/cli';
import { testConnection, withWorker } from '../kit/temporal';
import { agentCli } from '../kit/agent-cli';
import { PRIMARY, anthropicMessages, useAgentFixture } from '../agent/agent-kit';
import { answer, usePevFixture } from '../pev/pev-kit';

const MiB = 1024 * 1024;

/** The input a run started with (its first history event). */
async function startInput(agents: AgentClient, id: string): Promise<AgentWorkflowInput> {
  const history = await agents.client.workflow.getHandle(id).fetchHistory();
  const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
  return JSON.parse(Buffer.from(payload.data!).toString('utf8')) as AgentWorkflowInput;
}

describe('big input', () => {
  const fx = useAgentFixture();

  it('refuses a task, steering, follow-up, edited arguments and a tool result over the limit at once', async () => {
    const { client } = await testConnection();
    const agents = new AgentClient(client, `nobody-${crypto.randomUUID()}`);
    const big = 'x'.repeat(3 * MiB);
    const id = `too-big-${crypto.randomUUID()}`;
    const started = Date.now();
    const refused = agents.start({ id, task: big, model: PRIMARY });
    await expect(refused).rejects.toThrow(PayloadTooLargeError);
    await expect(refused).rejects.toThrow(
      /^the task is 3\.0 MiB, over the server's payload limit of 2\.0 MiB: pass it by reference with `run --task-file FILE`/,
    );
    await expect(client.workflow.getHandle(id).describe()).rejects.toThrow(WorkflowNotFoundError);

    const queued = await agents.start({ task: 'Wait.', model: PRIMARY });
    await expect(agents.steer(queued, big)).rejects.toThrow(/^the steering text is 3\.0 MiB, over .* points to it$/);
    await expect(agents.followUp(queued, big)).rejects.toThrow(/^the follow-up text is 3\.0 MiB/);
    await expect(agents.approve(queued, 'c1', { args: { text: big }, argsHash: 'h' })).rejects.toThrow(
      /^the approval with its edited arguments is 3\.0 MiB/,
    );
    await expect(agents.submitToolResult(queued, 'c1', big)).rejects.toThrow(/^the tool result is 3\.0 MiB/);
    // Refused before any round trip that could wait: no 40 s of retries.
    expect(Date.now() - started).toBeLessThan(10_000);
    // An explicit limit (for servers that do not report theirs) is named as such.
    const small = new AgentClient(client, agents.taskQueue, { maxPayloadBytes: 4096 });
    await expect(small.steer(queued, 'y'.repeat(5000))).rejects.toThrow('over the configured payload limit of 4.0 KiB');
    await client.workflow.getHandle(queued).terminate('test over');
  });

  it('run --task-file passes a task bigger than the limit by reference; the run reads it whole', async () => {
    const { address, namespace } = await testConnection();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'task-'));
    const file = path.join(dir, 'task.md');
    const body = `Count the lines below.\n${'0123456789abcdef\n'.repeat(Math.ceil((2.2 * MiB) / 17))}`;
    fs.writeFileSync(file, body);
    fx.fake.script(reply.text('Many lines.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const env = {
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
        DURABLE_AGENTS_TASK_QUEUE: taskQueue,
        DURABLE_AGENTS_STORE_DIR: fx.store.root,
      };
      const run = await runCli(['run', '--model', 'openai/gpt-4.1', '--task-file', file, '--json'], { env });
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout);
      expect(result).toMatchObject({ status: 'completed', finalText: 'Many lines.' });
      const sent = JSON.stringify(fx.fake.requests[0].body);
      expect(sent.length).toBeGreaterThan(2 * MiB);
      expect(sent).toContain('Count the lines below.\\n0123456789abcdef');
      const input = await startInput(new AgentClient(client, taskQueue), result.id);
      expect(input.config.taskHash).toMatch(/^[0-9a-f]{64}$/);
      expect(input.config.task).toMatch(/^The request is the first user message of this conversation/);
      expect(input.config.task.length).toBeLessThan(400);
      const described = await client.workflow.getHandle(result.id).describe();
      expect(await described.staticSummary()).toBe('react · Count the lines below.');

      // stdin: `-` as the task (inline) and `--task-file -` (by reference).
      fx.fake.script(reply.text('From stdin.'), reply.text('By reference from stdin.'));
      const inline = await runCli(['run', '--model', PRIMARY, '--json', '-'], { env, input: 'Say hi from stdin.\n' });
      expect(JSON.parse(inline.stdout)).toMatchObject({ finalText: 'From stdin.' });
      const piped = await runCli(['run', '--model', PRIMARY, '--json', '--task-file', '-'], {
        env,
        input: 'Say hi by reference.\n',
      });
      const byRef = JSON.parse(piped.stdout);
      expect(byRef).toMatchObject({ finalText: 'By reference from stdin.' });
      expect((await startInput(new AgentClient(client, taskQueue), byRef.id)).config.taskHash).toBeDefined();
      const texts = fx.fake.requests.slice(-2).map((r) => JSON.stringify(anthropicMessages(r.body)[0]));
      expect(texts[0]).toContain('Say hi from stdin.');
      expect(texts[1]).toContain('Say hi by reference.');

      const empty = await runCli(['run', '--model', PRIMARY, '--task-file', '-'], { env, input: '  \n' });
      expect(empty.code).toBe(2);
      expect(empty.stderr).toBe('durable-agents: the task in stdin is empty\n');
    });
  });
});

describe('big input to a pev run', () => {
  const fx = usePevFixture();

  it("the planner's prompt points to the first message instead of repeating the request", async () => {
    const { client } = await testConnection();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'task-'));
    const file = path.join(dir, 'task.md');
    fs.writeFileSync(file, `Review this report.\n${'A long paragraph of the report. '.repeat(4000)}`);
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'Read the report' }]),
      answer.executed('read it'),
      answer.verified('The report was reviewed.'),
    );
    await withWorker({ activities: fx.pevActivities }, async ({ taskQueue }) => {
      const cli = agentCli(client, taskQueue, { DURABLE_AGENTS_STORE_DIR: fx.store.root });
      const result = JSON.parse(
        await cli.run('run', '--agent', 'pev', '--model', PRIMARY, '--task-file', file, '--json'),
      );
      expect(result).toMatchObject({ finalText: 'The report was reviewed.' });
      // The task and the planner's prompt: consecutive user texts (the adapter may join them in one message).
      const [first, planner] = anthropicMessages(fx.fake.requests[0].body)
        .filter((m) => m.role === 'user')
        .flatMap((m) => m.blocks.map((b) => String(b.text)));
      expect(first).toContain('A long paragraph of the report.');
      expect(planner).toContain('The request is the first user message of this conversation');
      expect(planner).not.toContain('A long paragraph of the report.');
      expect(planner.length).toBeLessThan(4000);
    });
  });
});
