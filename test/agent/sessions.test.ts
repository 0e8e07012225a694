/**
 * Conversations that go on after a run: `run --continue ID` starts from the whole conversation of
 * an ended run, `fork ID --at-turn N` from its first N turns, by reference (no tool runs again),
 * and `--idle-wait` keeps a run open for follow-ups after its answer.
 */
import { AgentClient } from '../../src/client';
import { reply, type RecordedRequest } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { FALLBACK, PRIMARY, unansweredCalls, useAgentFixture, waitFor, waitForState } from './agent-kit';

interface WireMessage {
  role: string;
  content: unknown;
}

/** The messages a request sent, in either wire format. */
const messagesOf = (request: RecordedRequest): WireMessage[] => request.body.messages as WireMessage[];
const lastRequest = (requests: RecordedRequest[]): RecordedRequest => requests[requests.length - 1];
const textOf = (messages: WireMessage[]): string => JSON.stringify(messages);

describe('conversations that go on', () => {
  const fx = useAgentFixture();

  it('run --continue answers from the earlier conversation, by reference, with no tool run again', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 }, id: 'toolu_c1' }]),
      reply.text('Noted the code 4711; 1 + 2 = 3.'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const first = JSON.parse(
        await cli.run('run', '--model', PRIMARY, '--json', 'Remember the code 4711, then add 1 and 2.'),
      ) as { id: string; status: string };
      expect(first.status).toBe('completed');
      expect(fx.calls).toEqual(['add:1+2']);

      // A follow-up to the ended run is refused with the way to go on.
      await expect(cli.run('follow-up', first.id, 'And now?')).rejects.toThrow(
        `durable-agents run --continue ${first.id} TEXT`,
      );

      fx.fake.script(reply.text('You gave me the code 4711.'));
      const asked = fx.fake.requests.length;
      const second = JSON.parse(
        await cli.run('run', '--continue', first.id, '--json', 'Which code did I give you?'),
      ) as { id: string; status: string; finalText: string; model: string };
      expect(second).toMatchObject({ status: 'completed', finalText: 'You gave me the code 4711.', model: PRIMARY });
      expect(second.id).not.toBe(first.id);
      // The model saw the earlier task, answer and tool result, then the new task; the tool ran once.
      expect(fx.fake.requests).toHaveLength(asked + 1);
      const sent = messagesOf(lastRequest(fx.fake.requests));
      expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(textOf(sent.slice(0, 1))).toContain('Remember the code 4711');
      expect(textOf(sent.slice(4))).toContain('Which code did I give you?');
      expect(fx.calls).toEqual(['add:1+2']);

      const handle = client.workflow.getHandle(second.id);
      expect((await handle.describe()).memo).toEqual({ continuedFrom: first.id });
      await saveHistoryIfRecording(handle, 'agent-continue');
      // Its messages (what `transcript` shows) hold both conversations; the earlier run's are unchanged.
      const reader = new AgentClient(client, taskQueue, { store: fx.store });
      const texts = (await reader.messages(second.id)).map((m) => ('text' in m ? m.text : ''));
      expect(texts).toEqual(expect.arrayContaining([expect.stringContaining('Remember the code 4711')]));
      expect(texts).toContain('You gave me the code 4711.');
      expect(JSON.stringify(await reader.messages(first.id))).not.toContain('Which code');
      const state = await new AgentClient(client, taskQueue).state(second.id);
      expect(state.events[0]).toMatchObject({ type: 'conversation_continued', fromRun: first.id, turns: 2 });
    });
  });

  it('run --continue takes the whole conversation of a run that continued as new', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 20, b: 22 }, id: 'toolu_can1' }]),
      reply.text('The sum is 42.'),
      reply.text('It was 42.'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue);
      const first = await agents.run({
        session: { continueAsNewAfterTurns: 1 },
        task: 'Add 20 and 22.',
        model: PRIMARY,
      });
      expect(first).toMatchObject({ status: 'completed', turns: 2 });
      const runs = await client.workflow.count(`WorkflowId = '${first.id}'`);
      expect(runs.count).toBeGreaterThan(1);
      const second = await agents.run({ task: 'What was the sum?', model: PRIMARY, continueFrom: first.id });
      expect(second).toMatchObject({ status: 'completed', finalText: 'It was 42.' });
      const sent = messagesOf(lastRequest(fx.fake.requests));
      expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(textOf(sent)).toContain('The sum is 42.');
      expect(fx.calls).toEqual(['add:20+22']);
    });
  });

  it('fork --at-turn 2 --model starts from exactly two turns; without a task it answers their tool results', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 }, id: 'toolu_f1' }]),
      reply.toolCalls([{ name: 'add', arguments: { a: 3, b: 4 }, id: 'toolu_f2' }]),
      reply.toolCalls([{ name: 'add', arguments: { a: 5, b: 6 }, id: 'toolu_f3' }]),
      reply.text('The sums are 3, 7 and 11.'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const agents = new AgentClient(client, taskQueue);
      const source = JSON.parse(await cli.run('run', '--model', PRIMARY, '--json', 'Add three pairs.')) as {
        id: string;
        turns: number;
      };
      expect(source.turns).toBe(4);
      const calls = fx.calls.length;

      fx.fake.script(reply.text('Products instead: 2, 12.'));
      const forked = JSON.parse(
        await cli.run('fork', source.id, '--at-turn', '2', '--model', FALLBACK, '--json', 'Multiply them instead.'),
      ) as { id: string; status: string; model: string; finalText: string };
      expect(forked).toMatchObject({ status: 'completed', model: FALLBACK, finalText: 'Products instead: 2, 12.' });
      const request = lastRequest(fx.fake.requests);
      expect(request.api).toBe('openai');
      // OpenAI's format: the task, two answers each with its tool result, then the new task.
      const sent = messagesOf(request).filter((m) => m.role !== 'system');
      expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'user']);
      expect(textOf(sent)).not.toContain('toolu_f3');
      expect(fx.calls).toHaveLength(calls);
      expect((await client.workflow.getHandle(forked.id).describe()).memo).toEqual({
        continuedFrom: source.id,
        forkedAtTurn: 2,
      });

      fx.fake.script(reply.text('Going on: 7.'));
      const retry = await agents.fork(source.id, { atTurn: 2 });
      expect(await agents.result(retry)).toMatchObject({
        status: 'completed',
        finalText: 'Going on: 7.',
        model: PRIMARY,
      });
      const resent = messagesOf(lastRequest(fx.fake.requests));
      expect(resent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(textOf(resent.slice(4))).toContain('toolu_f2');

      // A turn the run never took is refused before any run starts; nothing is sent to a model.
      const asked = fx.fake.requests.length;
      const started = (await client.workflow.count(`TaskQueue = '${taskQueue}'`)).count;
      await expect(agents.fork(source.id, { atTurn: 9, task: 'Again.' })).rejects.toThrow(
        `run "${source.id}" took 4 turns: there is no turn 9 to fork from`,
      );
      await expect(cli.run('fork', source.id, '--at-turn', '5')).rejects.toThrow('there is no turn 5 to fork from');
      expect((await client.workflow.count(`TaskQueue = '${taskQueue}'`)).count).toBe(started);
      expect(fx.fake.requests).toHaveLength(asked);
      // A fork without a task of a turn that ended with an answer has nothing to answer.
      const answered = await agents.fork(source.id, { atTurn: 4 });
      expect((await agents.result(answered)).error?.message).toBe(
        `${source.id} ends with an answer at turn 4: give the new run a task to answer`,
      );

      await expect(agents.fork('agent-no-such-run', { atTurn: 1 })).rejects.toThrow(
        'no agent run with id "agent-no-such-run"',
      );
      await expect(cli.run('fork', source.id, '--at-turn', '0')).rejects.toThrow();
    });
  });

  it("run --continue keeps the earlier run's approval rules", async () => {
    fx.fake.script(reply.text('Nothing to delete yet.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const agents = new AgentClient(client, taskQueue);
      const first = JSON.parse(
        await cli.run('run', '--model', PRIMARY, '--approve', 'delete_file', '--json', 'Wait for my word.'),
      ) as { id: string; status: string };
      expect(first.status).toBe('completed');

      fx.fake.script(reply.toolCalls([{ name: 'delete_file', arguments: { path: 'y.txt' }, id: 'toolu_kept' }]));
      const second = await cli.run('run', '--continue', first.id, '--model', PRIMARY, '--detach', 'Now delete y.txt.');
      const waiting = await waitForState(agents, second, (s) => s.status === 'awaiting_approval');
      expect(waiting.pendingApprovals.map((a) => a.toolCallId)).toEqual(['toolu_kept']);
      expect(fx.calls).toEqual([]);
      await cli.run('stop', second);
    });
  });

  it('run --continue and fork of a run terminated while a call waited for approval close that call as not run', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'delete_file', arguments: { path: 'x.txt' }, id: 'toolu_open' }]));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const agents = new AgentClient(client, taskQueue);
      const { id } = JSON.parse(
        await cli.run('run', '--model', PRIMARY, '--approve', 'delete_file', '--detach', '--json', 'Delete x.txt.'),
      ) as { id: string };
      await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
      await client.workflow.getHandle(id).terminate('the operator stopped it');

      // The fake provider refuses a request whose tool call has no result, as the providers do.
      fx.fake.script(reply.text('x.txt was not deleted.'), reply.text('Still not deleted.'));
      const continued = JSON.parse(await cli.run('run', '--continue', id, '--json', 'Did you delete it?')) as {
        id: string;
        status: string;
        finalText: string;
      };
      expect(continued).toMatchObject({ status: 'completed', finalText: 'x.txt was not deleted.' });
      const sent = messagesOf(lastRequest(fx.fake.requests));
      expect(textOf(sent)).toContain('Not run: the earlier run ended first.');
      expect(textOf(sent)).toContain('Did you delete it?');
      expect(unansweredCalls(await agents.state(continued.id))).toEqual([]);

      const forked = JSON.parse(await cli.run('fork', id, '--at-turn', '1', '--json', 'Try again later.')) as {
        status: string;
        finalText: string;
      };
      expect(forked).toMatchObject({ status: 'completed', finalText: 'Still not deleted.' });
      expect(textOf(messagesOf(lastRequest(fx.fake.requests)))).toContain('Not run: the earlier run ended first.');
      expect(fx.calls).toEqual([]);
      // The earlier run's own conversation is unchanged: its call stays open there.
      const reader = new AgentClient(client, taskQueue, { store: fx.store });
      expect(JSON.stringify(await reader.messages(id))).not.toContain('Not run');
    });
  });

  it('--idle-wait keeps a run open for follow-ups after its answer, until the wait ends or a stop', async () => {
    fx.fake.script(reply.text('First answer.'), reply.text('Second answer.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const agents = new AgentClient(client, taskQueue);
      const id = await cli.run('run', '--model', PRIMARY, '--idle-wait', '1h', '--detach', 'Answer, then wait.');
      await waitForState(agents, id, (s) => s.status === 'awaiting_follow_up' && s.turn === 1);
      await expect(cli.run('fork', id, '--at-turn', '1')).rejects.toThrow(`run "${id}" is still running`);
      await cli.run('follow-up', id, 'And a second thing?');
      const waiting = await waitForState(agents, id, (s) => s.status === 'awaiting_follow_up' && s.turn === 2);
      expect(waiting.finalText).toBe('Second answer.');
      await cli.run('stop', id);
      expect(await agents.result(id)).toMatchObject({
        status: 'stopped',
        finalText: 'Second answer.',
        turns: 2,
      });
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-idle-wait');

      fx.fake.script(reply.text('Only answer.'));
      const short = await agents.start({ session: { idleWaitMs: 500 }, task: 'Answer once.', model: PRIMARY });
      expect(await agents.result(short)).toMatchObject({ status: 'completed', finalText: 'Only answer.', turns: 1 });
      await expect(agents.start({ session: { idleWaitMs: -1 }, task: 'x', model: PRIMARY })).rejects.toThrow(
        'idleWaitMs must be a whole number of milliseconds above 0, got -1',
      );
    });
  });

  it('run --idle-wait in the foreground prints each answer as it comes and says how to follow up', async () => {
    fx.fake.script(reply.text('First answer.'), reply.text('Second answer.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const agents = new AgentClient(client, taskQueue);
      const waiting = cli.run('run', '--id', `idle-fg-${Date.now()}`, '--model', PRIMARY, '--idle-wait', '1h', 'Hi.');
      await waitFor(() => cli.printed().includes('First answer.'), 'the first answer on screen');
      const id = /run (\S+) waits for a follow-up to its answer of turn 1/.exec(cli.notes())?.[1] ?? '';
      expect(cli.notes()).toContain(`follow up: durable-agents follow-up ${id} TEXT`);
      expect(await cli.run('state', id)).toContain(
        `awaiting a follow-up to its answer of turn 1:\n  follow up: durable-agents follow-up ${id} TEXT`,
      );
      await cli.run('follow-up', id, 'And then?');
      await waitFor(() => cli.printed().includes('Second answer.'), 'the second answer on screen');
      await cli.run('stop', id);
      const printed = await waiting;
      // Each answer once, then how the run ended.
      expect(printed.split('\n').filter((l) => l.endsWith('answer.'))).toEqual(['First answer.', 'Second answer.']);
      expect(printed).toMatch(new RegExp(`\n${id}: stopped after 2 turns`));
      expect(await agents.result(id)).toMatchObject({ status: 'stopped', finalText: 'Second answer.' });
    });
  });
});
