/**
 * A run started from the application's own conversation (`session.initialMessages`): the first
 * model call sees those messages, then the task; with the client's store they travel by reference;
 * a conversation no provider takes is refused in one line before anything starts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { AgentClient } from '../../src/client';
import type { InitialMessage } from '../../src/contracts/run-spec';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { testConnection, withWorker } from '../kit/temporal';
import { PRIMARY, anthropicMessages, useAgentFixture } from './agent-kit';

/** A conversation of the application's chat store, with a tool call the worker has (`add`). */
const CHAT: InitialMessage[] = [
  { role: 'user', content: 'My locker code is 4711. Add 1 and 2.' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Adding.' },
      { type: 'tool_call', id: 'toolu_given1', name: 'add', arguments: { a: 1, b: 2 } },
    ],
  },
  { role: 'tool_result', toolCallId: 'toolu_given1', toolName: 'add', content: '3' },
  { role: 'assistant', content: 'The sum is 3.' },
];

const texts = (blocks: Record<string, unknown>[]): string => JSON.stringify(blocks);

/** Every payload of a run's history, decoded: what history holds of the run's data. */
async function payloadTexts(history: Promise<unknown>): Promise<string> {
  const decoded: string[] = [];
  const walk = (value: unknown): void => {
    if (value instanceof Uint8Array) decoded.push(Buffer.from(value).toString('utf8'));
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(await history);
  return decoded.join('\n');
}

describe('a run started from the application’s messages', () => {
  const fx = useAgentFixture();

  it('shows the model the given messages, then the task; with the client’s store its history holds their hash', async () => {
    fx.fake.script(reply.text('Your locker code is 4711.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue, { store: fx.store });
      const id = await agents.start({
        task: 'What is my locker code?',
        model: PRIMARY,
        session: { initialMessages: CHAT },
      });
      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: 'Your locker code is 4711.' });

      expect(fx.fake.requests).toHaveLength(1);
      const sent = anthropicMessages(fx.fake.requests[0].body);
      expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(texts(sent[0].blocks)).toContain('My locker code is 4711.');
      expect(sent[1].blocks).toContainEqual(expect.objectContaining({ type: 'tool_use', name: 'add' }));
      expect(sent[2].blocks).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_given1' })]);
      expect(texts(sent[3].blocks)).toContain('The sum is 3.');
      expect(texts(sent[4].blocks)).toContain('What is my locker code?');
      // The given call is history: no tool ran.
      expect(fx.calls).toEqual([]);

      const history = await payloadTexts(client.workflow.getHandle(id).fetchHistory());
      expect(history).toContain('"initialMessages":{"hash":"');
      expect(history).not.toContain('My locker code is 4711');
      expect(history).not.toContain('The sum is 3.');
      const state = await agents.state(id);
      expect(state.events[0]).toEqual(
        expect.objectContaining({ type: 'conversation_continued', messages: 4, turns: 2 }),
      );
      expect(state.events[0]).not.toHaveProperty('fromRun');
      const transcript = await agents.messages(id);
      expect(transcript.map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'tool_result',
        'assistant',
        'user',
        'assistant',
      ]);
    });
  });

  it('travel inline in the run’s input from a client without a store', async () => {
    fx.fake.script(reply.text('4711.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue);
      const id = await agents.start({ task: 'My code?', model: PRIMARY, session: { initialMessages: CHAT } });
      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: '4711.' });
      const sent = anthropicMessages(fx.fake.requests[0].body);
      expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(await payloadTexts(client.workflow.getHandle(id).fetchHistory())).toContain('My locker code is 4711');
    });
  });

  it('refuses a conversation no provider takes in one line, and starts nothing', async () => {
    const { client } = await testConnection();
    const agents = new AgentClient(client, `nobody-${crypto.randomUUID()}`, { store: fx.store });
    const id = `given-bad-${crypto.randomUUID()}`;
    const refused = agents.start({
      id,
      task: 'And now?',
      model: PRIMARY,
      session: { initialMessages: [CHAT[0], CHAT[1], CHAT[3]] },
    });
    await expect(refused).rejects.toThrow(
      /^invalid run options: initialMessages\[2\] comes before the results of tool calls toolu_given1 of initialMessages\[1\]$/,
    );
    await expect(client.workflow.getHandle(id).describe()).rejects.toThrow(WorkflowNotFoundError);
  });

  it('run --messages FILE starts from the file’s conversation by reference; a bad file is a usage error', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'messages-'));
    const good = path.join(dir, 'chat.json');
    fs.writeFileSync(good, JSON.stringify(CHAT));
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify([CHAT[3], CHAT[0]]));
    fx.fake.script(reply.text('It is 4711.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue, { DURABLE_AGENTS_STORE_DIR: fx.store.root });
      const run = JSON.parse(
        await cli.run('run', '--model', PRIMARY, '--messages', good, '--json', 'Which code did I give?'),
      ) as { id: string; status: string };
      expect(run.status).toBe('completed');
      const sent = anthropicMessages(fx.fake.requests[0].body);
      expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(texts(sent[4].blocks)).toContain('Which code did I give?');

      const before = (await client.workflow.count(`TaskQueue = '${taskQueue}'`)).count;
      await expect(cli.run('run', '--model', PRIMARY, '--messages', bad, 'Hm?')).rejects.toThrow(
        `--messages ${bad}: initialMessages[0] must be a user message: a conversation begins with one`,
      );
      expect((await client.workflow.count(`TaskQueue = '${taskQueue}'`)).count).toBe(before);
    });
  });

  it('a stored array no provider takes is refused by a client with the store, and ends the run of one without', async () => {
    const hash = await fx.store.put([CHAT[0], CHAT[0]]);
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const checked = new AgentClient(client, taskQueue, { store: fx.store });
      const refused = `given-stored-${crypto.randomUUID()}`;
      await expect(
        checked.start({ id: refused, task: 'And?', model: PRIMARY, session: { initialMessages: { hash } } }),
      ).rejects.toThrow(
        /^invalid run options: initialMessages\[1\] is a second user message in a row: user and assistant messages alternate$/,
      );
      await expect(client.workflow.getHandle(refused).describe()).rejects.toThrow(WorkflowNotFoundError);
      const agents = new AgentClient(client, taskQueue);
      const id = await agents.start({ task: 'And?', model: PRIMARY, session: { initialMessages: { hash } } });
      const result = await agents.result(id);
      expect(result).toMatchObject({ status: 'failed', stopReason: 'error', turns: 0 });
      expect(result.error?.message).toBe(
        'initialMessages[1] is a second user message in a row: user and assistant messages alternate',
      );
      expect(fx.fake.requests).toHaveLength(0);
    });
  });
});
