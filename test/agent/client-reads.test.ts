/**
 * Reading a run from code: `messages` across continue-as-new as `transcript` prints it, an
 * `onMessage` hook that loads bodies, and `watch(id, { answers: true })` for JSON and pev answers.
 */
import crypto from 'node:crypto';
import { createAgentActivities } from '../../src/activities/agent';
import { messageHook } from '../../src/activities/message-hook';
import { createToolActivities } from '../../src/activities/tool-activities';
import { AgentClient, ANSWERS_TOPIC, extract, type AnswerItem } from '../../src/client';
import type { RunMessage } from '../../src/contracts/run-message';
import type { StoredBody } from '../../src/contracts/stored-body';
import { llmClient } from '../../src/llm';
import { reply } from '../../src/testing/fake-provider';
import { ToolRegistry } from '../../src/tools';
import { z } from 'zod';
import { runCli } from '../kit/cli';
import { testConnection, withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from './agent-kit';
import { answer, usePevFixture } from '../pev/pev-kit';

describe("a run's messages from code", () => {
  const hooked: { message: RunMessage; body: StoredBody }[] = [];
  const fx = useAgentFixture();

  it('messages() gives the whole conversation across continue-as-new, as transcript --json prints it', async () => {
    const saveMessage = messageHook(fx.store, async (call) => {
      hooked.push({ message: await call.runMessage(), body: await call.body() });
    });
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 }, id: 'toolu_add' }]),
      reply.text('3'),
      reply.text('Still 3.'),
    );
    const { client } = await testConnection();
    const taskQueue = `test-${crypto.randomUUID()}`;
    const agents = new AgentClient(client, taskQueue, { store: fx.store });
    const id = await agents.start({
      session: { continueAsNewAfterTurns: 1 },
      task: 'Add 1 and 2.',
      model: PRIMARY,
      hooks: { onMessage: 'saveMessage' },
    });
    // Sent before a worker polls, so the first turn takes the steering whatever the timing.
    await agents.steer(id, 'Use the add tool.');
    await agents.followUp(id, 'Check it again.');
    await withWorker({ activities: { ...fx.activities, saveMessage }, taskQueue }, async () => {
      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: 'Still 3.' });
    });
    const history = await client.workflow.getHandle(id).fetchHistory();
    expect(history.events?.[0].workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();

    // No worker polls now: the run is closed and its messages come from the store.
    const messages = await agents.messages(id);
    expect(messages.map((m) => (m.role === 'user' ? `user:${m.origin}:${m.text}` : `${m.role}`))).toEqual([
      'user:task:Add 1 and 2.',
      'user:steering:Use the add tool.',
      'assistant',
      'tool_result',
      'assistant',
      'user:follow_up:Check it again.',
      'assistant',
    ]);
    expect(messages[2]).toMatchObject({
      role: 'assistant',
      seq: 2,
      model: PRIMARY,
      toolCalls: [{ id: 'toolu_add', name: 'add', arguments: { a: 1, b: 2 } }],
    });
    expect(messages[3]).toMatchObject({ role: 'tool_result', toolCallId: 'toolu_add', text: '3', isError: false });
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', text: 'Still 3.' });

    const env = { DURABLE_AGENTS_STORE_DIR: fx.store.root, DURABLE_AGENTS_STORE_URL: '' };
    const json = await runCli(['transcript', id, '--json'], { env });
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(messages)));
    const text = await runCli(['transcript', id], { env });
    expect(text.stdout).toContain('#1 user (steering): Use the add tool.');
    expect(text.stdout).toContain('calls add({"a":1,"b":2}) [toolu_add]');

    // The hook loaded each message the workflow told it about: the same items messages() gives.
    const bySeq = new Map(messages.map((m) => ['seq' in m ? m.seq : -1, m]));
    expect(hooked.map((h) => h.message.role)).toEqual(['assistant', 'tool_result', 'assistant', 'assistant']);
    for (const { message, body } of hooked) {
      expect(message).toEqual(bySeq.get('seq' in message ? message.seq : -1));
      expect(body.role).toBe(message.role);
    }
  });

  it('refuses an unknown run id, and a client without a store, in one line', async () => {
    const { client } = await testConnection();
    const unknown = `never-${crypto.randomUUID()}`;
    await expect(new AgentClient(client, 'q', { store: fx.store }).messages(unknown)).rejects.toThrow(
      `no agent run with id "${unknown}": Temporal does not know it and ${fx.store.description} has no conversation of it`,
    );
    await expect(new AgentClient(client, 'q').messages(unknown)).rejects.toThrow(
      /read from the content store its workers write: create the client with one/,
    );
    const cli = await runCli(['transcript', unknown], { env: { DURABLE_AGENTS_STORE_DIR: fx.store.root } });
    expect(cli.stderr).toContain(`has no conversation "${unknown}": check the id`);
  });
});

const answersOf = <T>(items: unknown[]): AnswerItem<T>[] =>
  items.filter((i): i is AnswerItem<T> => (i as { topic: string }).topic === ANSWERS_TOPIC);

describe('structured answers while they stream', () => {
  const fx = usePevFixture();
  const Report = z.object({ city: z.string(), summary: z.string(), days: z.array(z.number()) });
  type Report = z.infer<typeof Report>;

  it('watch(id, { answers: true }) fills in a JSON-format answer, then gives it whole', async () => {
    const whole: Report = {
      city: 'Oslo',
      summary: 'Cold and clear all week, with a little snow on the weekend and wind along the coast.',
      days: [1, 2, 3],
    };
    fx.fake.script({ ...reply.text(JSON.stringify(whole)), eventDelayMs: 20 });
    const activities = {
      ...fx.activities,
      ...createAgentActivities({
        store: fx.store,
        tools: createToolActivities(new ToolRegistry()),
        llm: llmClient(fx.llm),
        tokenBatchMs: 40,
      }),
    };
    await withWorker({ activities }, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue, { store: fx.store });
      const id = await agents.start({
        call: { responseFormat: { type: 'json' } },
        task: 'The week in Oslo as JSON.',
        model: PRIMARY,
        stream: true,
      });
      const items: unknown[] = [];
      for await (const item of agents.watch<Report>(id, { answers: true })) items.push(item);
      const answers = answersOf<Report>(items);
      const partial = answers.filter((a) => !a.complete);
      expect(partial.length).toBeGreaterThan(1);
      expect(partial[0].value.summary ?? '').not.toBe(whole.summary);
      for (const a of partial) expect(whole.summary.startsWith(a.value.summary ?? '')).toBe(true);
      const complete = answers.filter((a) => a.complete);
      expect(complete).toEqual([expect.objectContaining({ role: 'answer', seq: 1, value: whole })]);
      expect(answers.at(-1)).toBe(complete[0]);
      // The answer's text pieces came as answer items, not tokens.
      expect(items.some((i) => (i as { topic: string }).topic === 'tokens')).toBe(false);
      expect(extract(Report, await agents.messages(id))).toEqual(whole);
    });
  });

  it("gives a pev run's planner, executor and verifier answers as values", async () => {
    const slow = { eventDelayMs: 10 };
    fx.fake.script(
      { ...answer.plan([{ id: 'task-1', description: 'Add 2 and 3' }]), ...slow },
      { ...answer.executed('2 + 3 = 5'), ...slow },
      { ...answer.verified('The sum is 5.'), ...slow },
    );
    await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue, { store: fx.store });
      const id = await agents.start({ kind: 'pev', task: 'Add 2 and 3.', model: PRIMARY, stream: true });
      const items: unknown[] = [];
      for await (const item of agents.watch(id, { answers: true })) items.push(item);
      const complete = answersOf<Record<string, unknown>>(items).filter((a) => a.complete);
      expect(complete.map((a) => [a.role, a.value.component])).toEqual([
        ['planner', 'planner-response'],
        ['executor', 'executor-response'],
        ['verifier', 'verifier-response'],
      ]);
      expect(complete[0].value).toMatchObject({ todos: [{ id: 'task-1', description: 'Add 2 and 3' }] });
      expect(complete[2].value).toMatchObject({ allCompleted: true, summary: 'The sum is 5.' });
    });
  });
});
