import { CommanderError } from 'commander';
import { AgentClient } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { runCli } from '../kit/cli';
import { saveHistoryIfRecording, testConnection, withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture, waitFor, waitForState } from './agent-kit';

describe('agent CLI', () => {
  const fx = useAgentFixture();

  it('runs a multi-turn tool-calling run with an approval, from run --detach to result --json', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'a.txt' }, id: 'toolu_cli' }]),
      reply.toolCalls([{ name: 'add', arguments: { a: 20, b: 22 } }]),
      reply.text('Deleted b.txt; the answer is 42.', { usage: { input: 120, output: 9, cacheRead: 30 } }),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue).run;
      const { id } = JSON.parse(
        await cli(
          'run',
          '--model',
          PRIMARY,
          '--approve',
          'delete_file',
          '--max-turns',
          '5',
          '--detach',
          '--json',
          'Delete a.txt, then add 20 and 22.',
        ),
      );
      expect(id).toMatch(/^delete-a-txt-then-add-20-and-22-[0-9a-f]{12}$/);
      await waitForState(new AgentClient(client, taskQueue), id, (s) => s.status === 'awaiting_approval');
      expect(JSON.parse(await cli('state', id, '--json'))).toMatchObject({
        turn: 1,
        model: PRIMARY,
        pendingApprovals: [{ toolCallId: 'toolu_cli', tool: 'delete_file', args: { path: 'a.txt' } }],
      });
      expect(await cli('state', id)).toContain('awaiting approval: toolu_cli delete_file {"path":"a.txt"}');
      const approved = await cli('approve', id, 'toolu_cli', '--args', '{"path":"b.txt"}');
      expect(approved).toContain('"path": "a.txt"');
      expect(approved).toContain('edited arguments: {"path":"b.txt"}');
      expect(approved.split('\n').at(-1)).toBe('delete_file toolu_cli: approved with edited arguments');
      const result = JSON.parse(await cli('result', id, '--json'));
      expect(result).toEqual(
        expect.objectContaining({
          id,
          status: 'completed',
          stopReason: 'completed',
          finalText: 'Deleted b.txt; the answer is 42.',
          turns: 3,
          usage: expect.objectContaining({
            inputTokens: expect.any(Number),
            outputTokens: expect.any(Number),
            cacheReadTokens: 30,
            cacheWriteTokens: 0,
          }),
          costUsd: expect.any(Number),
        }),
      );
      expect(fx.calls).toEqual(['delete_file:b.txt', 'add:20+22']);
      expect(await cli('result', id)).toContain(`${id}: completed after 3 turns on ${PRIMARY}`);
      const listed = JSON.parse(await cli('list', '--json')) as { id: string }[];
      expect(listed.map((r) => r.id)).toContain(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-cli-run');
    });
  });

  it('steer, follow-up, reject and stop reach the run', async () => {
    fx.resetLatch();
    fx.fake.script(
      reply.toolCalls([
        { name: 'slow_step', arguments: { label: 'A' } },
        { name: 'slow_step', arguments: { label: 'B' } },
      ]),
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'c.txt' }, id: 'toolu_rej' }]),
      reply.text('Kept c.txt.'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue, { DURABLE_AGENTS_MODEL: PRIMARY }).run;
      const id = await cli('run', '--approve', 'delete_file', '--detach', 'Steps then delete.');
      await waitFor(() => fx.calls.includes('slow_step:A'), 'step A');
      expect(await cli('steer', id, 'Skip B, delete c.txt instead.')).toMatch(/^steering sent \(message .+\)$/);
      expect(await cli('follow-up', id, 'Then say what you kept.')).toMatch(/^follow-up queued/);
      const agents = new AgentClient(client, taskQueue);
      await waitForState(agents, id, (s) => s.steeringQueued === 1);
      fx.latch.open();
      await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
      const rejected = await cli('reject', id, 'toolu_rej', '--reason', 'c.txt stays');
      expect(rejected.split('\n').at(-1)).toBe('delete_file toolu_rej: rejected');
      fx.fake.script(reply.text('I kept c.txt.'));
      const result = JSON.parse(await cli('result', id, '--json'));
      expect(result).toMatchObject({ status: 'completed', finalText: 'I kept c.txt.', turns: 4 });
      await expect(cli('stop', id)).rejects.toThrow(`run "${id}" has already ended`);
    });
    expect(fx.calls).toEqual(['slow_step:A']);
  });

  it('refuses unknown ids and bad arguments with one clear line', async () => {
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue).run;
      await expect(cli('state', 'agent-missing')).rejects.toThrow(/^no agent run with id "agent-missing"$/);
      await expect(cli('result', 'agent-missing')).rejects.toThrow(/^no agent run with id "agent-missing"$/);
      await expect(cli('steer', 'agent-missing', 'hi')).rejects.toThrow(/^no agent run with id "agent-missing"$/);
      await expect(cli('approve', 'agent-missing', 'c1', '--args', '{nope')).rejects.toThrow(
        /^--args is not valid JSON/,
      );
      await expect(cli('approve', 'agent-missing', 'c1', '--args', '[1]')).rejects.toThrow(
        /^--args must be a JSON object/,
      );
      await expect(cli('run', 'no model given')).rejects.toThrow(
        'no model: pass --model provider/model, set DURABLE_AGENTS_MODEL, or set ANTHROPIC_API_KEY or OPENAI_API_KEY',
      );
      await expect(cli('run', '--model', 'gpt4', 'x')).rejects.toThrow(CommanderError);
      await expect(cli('run', '--model', PRIMARY, '--max-turns', '0', 'x')).rejects.toThrow(CommanderError);
      await expect(cli('run', '--model', PRIMARY, '--agent', 'swarm', 'x')).rejects.toThrow(/^unknown --agent "swarm"/);
      await expect(cli('run', '--model', PRIMARY, '--mcp', '/nonexistent/mcp.json', 'x')).rejects.toThrow(
        /--mcp file \/nonexistent\/mcp.json does not exist/,
      );
    });
  });
});

describe('agent CLI as a process', () => {
  const fx = useAgentFixture();

  it('run --json prints one result object; unknown ids and bad arguments print one line and exit non-zero', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 4, b: 5 } }]), reply.text('Nine.'));
    const { address, namespace } = await testConnection();
    await withWorker({ activities: fx.activities }, async ({ taskQueue }) => {
      const env = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_TASK_QUEUE: taskQueue };
      const run = await runCli(['run', '--model', PRIMARY, '--tools', 'add', '--json', 'Add 4 and 5.'], { env });
      // The run's id comes at once on stderr; stdout holds only the result.
      expect(run.stderr).toMatch(/^run add-4-and-5-[0-9a-f]{12} started on task queue "[^"]+"\n$/);
      expect(run.code).toBe(0);
      const lines = run.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0])).toMatchObject({
        status: 'completed',
        stopReason: 'completed',
        finalText: 'Nine.',
        turns: 2,
        usage: { cacheWriteTokens: 0 },
      });
      expect(fx.fake.requests[0].body.tools).toEqual([expect.objectContaining({ name: 'add' })]);

      const unknown = await runCli(['state', 'agent-nobody'], { env });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toBe('durable-agents: no agent run with id "agent-nobody"\n');

      const unwatched = await runCli(['watch', 'agent-nobody'], { env });
      expect(unwatched.code).toBe(2);
      expect(unwatched.stderr).toBe('durable-agents: no agent run with id "agent-nobody"\n');

      const watchTwice = await runCli(['run', '--model', PRIMARY, '--watch', '--json', 'x'], { env });
      expect(watchTwice.code).toBe(2);
      expect(watchTwice.stderr).toBe(
        'durable-agents: --watch prints as the run works; it cannot be combined with --detach or --json\n',
      );

      const badArgs = await runCli(['approve', 'agent-nobody', 'c1', '--args', '{oops'], { env });
      expect(badArgs.code).toBe(2);
      expect(badArgs.stderr.trim().split('\n')).toHaveLength(1);
      expect(badArgs.stderr).toMatch(/^durable-agents: --args is not valid JSON/);

      const badTurns = await runCli(['run', '--model', PRIMARY, '--max-turns', 'many', 'x'], { env });
      expect(badTurns.code).not.toBe(0);
      expect(badTurns.stderr).toContain('"many" is not a whole number of at least 1.');
    });
  });

  it('runs on the model of the provider whose key is set when no model is named, and says which', async () => {
    fx.fake.script(reply.text('Picked by the key.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue, { ANTHROPIC_API_KEY: 'set-for-the-cli' });
      const id = `by-key-${Date.now()}`;
      await cli.run('run', '--id', id, 'Answer briefly.');
      expect(cli.notes()).toContain(
        'model: anthropic/claude-haiku-4-5 (ANTHROPIC_API_KEY is set; --model names another)',
      );
      expect(fx.fake.requests.at(-1)?.body.model).toBe('claude-haiku-4-5');
      const openai = agentCli(client, taskQueue, { OPENAI_API_KEY: 'set-for-the-cli', DURABLE_AGENTS_MODEL: PRIMARY });
      fx.fake.script(reply.text('Picked by the variable.'));
      await openai.run('run', '--id', `${id}-env`, 'Answer briefly.');
      expect(openai.notes()).not.toContain('is set; --model names another');
    });
  });
});
