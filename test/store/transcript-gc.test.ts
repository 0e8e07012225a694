/**
 * `transcript` and `gc` on both stores, from the CLI as an operator runs them: a real run with
 * tool calls, thinking, steering, a follow-up, a compaction summary and continue-as-new.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { createAgentActivities } from '../../src/activities/agent';
import { createToolActivities } from '../../src/activities/tool-activities';
import { AgentClient } from '../../src/client';
import { EXIT } from '../../src/cli/exit-codes';
import type { RunMessage } from '../../src/contracts/run-message';
import type { AgentWorkflowInput } from '../../src/contracts/agent-workflows';
import { llmClient, loadLlmConfig } from '../../src/llm';
import { FileContentStore, openStore, PostgresContentStore, type ContentStore } from '../../src/store';
import { storeConfig } from '../../src/worker/worker-config';
import { fakeProviderEnv, reply, startFakeProvider, type FakeProvider } from '../../src/testing/fake-provider';
import { createToolRegistry, defineTool } from '../../src/tools';
import { CHEAP, PRIMARY, waitForState } from '../agent/agent-kit';
import { runCli } from '../kit/cli';
import { createTestDatabase } from '../kit/postgres';
import { testConnection, withWorker } from '../kit/temporal';

interface Backend {
  name: string;
  open(): Promise<{ store: ContentStore; env: Record<string, string>; cleanup(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'file store',
    async open() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'transcript-'));
      return {
        store: new FileContentStore(dir, { bodyGraceMs: 0 }),
        env: { DURABLE_AGENTS_STORE_DIR: dir, DURABLE_AGENTS_STORE_URL: '' },
        cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'PostgreSQL store',
    async open() {
      const db = await createTestDatabase();
      const store = await PostgresContentStore.open(db.url);
      return {
        store,
        env: { DURABLE_AGENTS_STORE_URL: db.url },
        cleanup: async () => {
          await store.close();
          await db.drop();
        },
      };
    },
  },
];

describe.each(backends)('transcript and gc on the $name', (backend) => {
  let fake: FakeProvider;
  let store: ContentStore;
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  const registry = createToolRegistry();
  registry.register(
    defineTool({
      name: 'write_note',
      description: 'Writes a note.',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => `wrote ${text.length} characters`,
    }),
  );
  beforeAll(async () => {
    fake = await startFakeProvider();
    ({ store, env, cleanup } = await backend.open());
    const { address, namespace } = await testConnection();
    Object.assign(env, { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace });
  });
  afterAll(async () => {
    await fake.close();
    await cleanup();
  });

  it('prints the whole conversation in order across continue-as-new, then gc deletes it but not a running one', async () => {
    const long = (tag: string) => `${tag} `.repeat(800);
    fake.script(
      reply.blocks([
        { type: 'thinking', thinking: 'Two notes: alpha first.' },
        { type: 'tool_call', name: 'write_note', arguments: { text: long('alpha') }, id: 'toolu_n1' },
      ]),
      reply.toolCalls([{ name: 'write_note', arguments: { text: long('beta') }, id: 'toolu_n2' }]),
      reply.text('The user asked for notes; alpha note written.'),
      reply.text('Both notes are written.'),
      reply.text('Titled.'),
      reply.toolCalls([{ name: 'write_note', arguments: { text: 'pending' }, id: 'toolu_p' }]),
      reply.text('Written after gc.'),
    );
    const llm = llmClient(loadLlmConfig({ file: null, env: fakeProviderEnv(fake) }));
    const activities = createAgentActivities({ store, tools: createToolActivities(registry), llm });
    const id = `transcript-${crypto.randomUUID()}`;
    const waiting = `waiting-${crypto.randomUUID()}`;
    // Steering and the follow-up are sent before a worker polls, so the first turn takes the steering
    // whatever the timing (steering that arrives during a model call would skip that answer's calls).
    const taskQueue = `test-${crypto.randomUUID()}`;
    const early = new AgentClient((await testConnection()).client, taskQueue);
    await early.start({
      session: { continueAsNewAfterTurns: 2 },
      id,
      task: 'Write two notes.',
      model: PRIMARY,
      stream: true,
      context: { windowTokens: 3000, thresholdRatio: 0.8, keepRecentRatio: 0.3, summaryModel: CHEAP },
    });
    await early.steer(id, 'Keep them short.');
    await early.followUp(id, 'Add a title.');
    await withWorker({ activities, taskQueue }, async ({ client }) => {
      const agents = new AgentClient(client, taskQueue);
      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: 'Titled.' });

      const json = await runCli(['transcript', id, '--json'], { env });
      expect(json.stderr).toBe('');
      const items = JSON.parse(json.stdout) as RunMessage[];
      const brief = items.map((i) =>
        i.role === 'user'
          ? `user:${i.origin ?? ''}:${i.text}`
          : i.role === 'assistant'
            ? `assistant:${i.text}`
            : i.role,
      );
      expect(brief.filter((b) => b !== 'user:steering:Keep them short.')).toEqual([
        'user:task:Write two notes.',
        'assistant:',
        'tool_result',
        // Placed where it replaced the log: the model saw it instead of the three messages before.
        'summary',
        'assistant:',
        'tool_result',
        'assistant:Both notes are written.',
        'user:follow_up:Add a title.',
        'assistant:Titled.',
      ]);
      expect(brief).toContain('user:steering:Keep them short.');
      const first = items.find((i) => i.role === 'assistant');
      expect(first).toMatchObject({ thinking: ['Two notes: alpha first.'], model: 'anthropic/claude-sonnet-4-6' });
      expect(first?.role === 'assistant' && first.toolCalls).toEqual([
        { id: 'toolu_n1', name: 'write_note', arguments: { text: long('alpha') } },
      ]);
      expect(items.find((i) => i.role === 'tool_result')).toMatchObject({
        toolCallId: 'toolu_n1',
        text: 'wrote 4800 characters',
        isError: false,
      });
      const summary = items.find((i) => i.role === 'summary');
      expect(summary).toMatchObject({ text: 'The user asked for notes; alpha note written.', fromSeq: 0 });
      const human = await runCli(['transcript', id], { env });
      expect(human.stdout).toContain('#0 user (task): Write two notes.');
      expect(human.stdout).toContain('thinking: Two notes: alpha first.');
      expect(human.stdout).toMatch(/calls write_note\(\{"text":"alpha alpha/);
      expect(human.stdout).toContain('user (follow-up): Add a title.');
      expect(human.stdout).toContain('-- summary of #0..');

      // A second run waits for an approval: running, so gc leaves it alone.
      await agents.start({ tools: { approve: ['write_note'] }, id: waiting, task: 'Write one more.', model: PRIMARY });
      await waitForState(agents, waiting, (s) => s.pendingApprovals.length === 1);
      // A conversation Temporal never ran, written long enough ago.
      const orphan = `orphan-${crypto.randomUUID()}`;
      await store.writeEntries(orphan, [{ seq: 0, kind: 'user', hash: await store.put('orphan', orphan) }]);
      await new Promise((r) => setTimeout(r, 1_500));

      const dry = await runCli(['gc', '--older-than', '1s', '--dry-run'], { env });
      expect(dry.stdout).toContain(`would delete  ${id}  (completed on`);
      expect(dry.stdout).toContain(`keep  ${waiting}  (running)`);
      expect(dry.stdout).toMatch(new RegExp(`keep  ${orphan}  \\(Temporal does not know this run.*--force`));
      expect((await store.readLog(id)).entries.length).toBeGreaterThan(0);
      expect((await store.readTokens(id, 0)).records.length).toBeGreaterThan(0);

      const gc = await runCli(['gc', '--older-than', '1s'], { env });
      expect(gc.stderr).toBe('');
      expect(gc.stdout).toMatch(/Deleted 1 conversations \(\d+ log entries, \d+ bodies .*, 1 token streams\)/);
      // The run's token stream went with its conversation.
      expect((await store.readTokens(id, 0)).records).toEqual([]);
      const gone = await runCli(['transcript', id], { env });
      expect(gone.code).toBe(EXIT.usage);
      expect(gone.stderr).toMatch(/has no conversation ".*": check the id/);
      expect((await store.readLog(orphan)).entries).toHaveLength(1);
      const forced = await runCli(['gc', '--older-than', '1s', '--force'], { env });
      expect(forced.stdout).toContain(`delete  ${orphan}`);
      expect((await store.readLog(orphan)).entries).toHaveLength(0);

      // The running run still has every body it uses (the tool specs it shared with the deleted run too).
      const pending = (await agents.state(waiting)).pendingApprovals[0];
      await agents.approve(waiting, pending.toolCallId);
      expect(await agents.result(waiting)).toMatchObject({ status: 'completed', finalText: 'Written after gc.' });
    });
  }, 120_000);

  it('run --task-file stores the task in this store; the run reads it and records it for gc', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'task-')), 'task.md');
    const task = `Summarise the log below.\n${'a line of the log\n'.repeat(2000)}`;
    fs.writeFileSync(file, task);
    fake.script(reply.text('Summarised.'));
    const llm = llmClient(loadLlmConfig({ file: null, env: fakeProviderEnv(fake) }));
    const activities = createAgentActivities({ store, tools: createToolActivities(registry), llm });
    await withWorker({ activities }, async ({ client, taskQueue }) => {
      const cliEnv = { ...env, DURABLE_AGENTS_TASK_QUEUE: taskQueue };
      const run = await runCli(['run', '--model', PRIMARY, '--task-file', file, '--json'], { env: cliEnv });
      expect(run.code).toBe(EXIT.ok);
      const { id } = JSON.parse(run.stdout) as { id: string };
      const history = await client.workflow.getHandle(id).fetchHistory();
      const input = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
      const { taskHash } = (JSON.parse(Buffer.from(input.data!).toString('utf8')) as AgentWorkflowInput).config;
      expect(taskHash).toMatch(/^[0-9a-f]{64}$/);
      const items = JSON.parse((await runCli(['transcript', id, '--json'], { env })).stdout) as RunMessage[];
      expect(items[0]).toMatchObject({ role: 'user', origin: 'task', text: task });

      await new Promise((r) => setTimeout(r, 1_500));
      const dry = await runCli(['gc', '--older-than', '1s', '--dry-run', '--json'], { env });
      expect(dry.code).toBe(EXIT.ok);
      const report = JSON.parse(dry.stdout) as { dryRun: boolean; decisions: { id: string; delete: boolean }[] };
      expect(report).toMatchObject({ dryRun: true, store: store.description });
      expect(report.decisions).toContainEqual(expect.objectContaining({ id, delete: true }));
      // The worker recorded the task's body against the conversation, so deleting the run deletes it.
      await store.deleteConversations([id]);
      const fresh = await openStore(storeConfig(env));
      try {
        await expect(fresh.get(taskHash!)).rejects.toThrow(/no body stored/);
      } finally {
        await fresh.close();
      }
    });
  }, 120_000);

  it('reports bad input to the commands in one line', async () => {
    const age = await runCli(['gc', '--older-than', 'soon'], { env });
    expect(age.code).toBe(EXIT.usage);
    expect(age.stderr).toContain('"soon" is not an age like 30d');
    const unknown = await runCli(['transcript', `never-${crypto.randomUUID()}`], { env });
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
  }, 60_000);
});
