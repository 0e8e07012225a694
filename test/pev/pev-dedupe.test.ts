/**
 * Reuse of identical tool calls in a pev run never returns a stale result: a read after a write of
 * the same file (in a later answer or the same one), in a new cycle or after a follow-up reads the
 * file as it is, and a tool that opts out is run again, on a real server with the built-in file
 * tools in a workspace.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { createAgentActivities } from '../../src/activities/agent';
import { createPevActivities } from '../../src/activities/pev';
import { createToolActivities } from '../../src/activities/tool-activities';
import { llmClient } from '../../src/llm';
import { createToolRegistry, defineTool } from '../../src/tools';
import { reply, type FakeStep } from '../../src/testing/fake-provider';
import type { PevAgentResult } from '../../src/contracts/pev-run';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { anthropicMessages, waitForState } from '../agent/agent-kit';
import { PRIMARY, answer, pevResult, startPev, usePevFixture } from './pev-kit';

describe('pev tool-call reuse', () => {
  const fx = usePevFixture();
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'pev-dedupe-'));
  let ticks = 0;
  const registry = createToolRegistry({ builtins: { fetch: false, webSearch: false } });
  registry.register(
    defineTool({
      name: 'clock',
      description: 'The current tick.',
      parameters: z.object({}),
      dedupe: false,
      execute: () => `tick ${++ticks}`,
    }),
  );
  const activities = () => ({
    ...createAgentActivities({ store: fx.store, tools: createToolActivities(registry), llm: llmClient(fx.llm) }),
    ...createPevActivities({ store: fx.store }),
  });
  afterAll(() => registry.mcpPool.close());

  it('reads a file again after a write of it, and runs a tool that opts out every time', async () => {
    fs.writeFileSync(path.join(workspace, 'notes.txt'), 'old text');
    fx.fake.script(
      answer.plan([
        { id: 'task-1', description: 'Read notes.txt' },
        { id: 'task-2', description: 'Rewrite notes.txt' },
        { id: 'task-3', description: 'Read notes.txt again and check the clock twice' },
      ]),
      reply.toolCalls([{ name: 'fs_read', arguments: { path: 'notes.txt' } }]),
      answer.executed('it says old text'),
      reply.toolCalls([{ name: 'fs_write', arguments: { path: 'notes.txt', content: 'new text' } }]),
      answer.executed('rewritten'),
      reply.toolCalls([
        { name: 'fs_read', arguments: { path: 'notes.txt' } },
        { name: 'clock', arguments: {} },
      ]),
      reply.toolCalls([{ name: 'clock', arguments: {} }]),
      answer.executed('it says new text'),
      answer.verified('notes.txt now says new text.'),
    );
    const result = await withWorker(
      { activities: activities(), maxCachedWorkflows: 0 },
      async ({ client, taskQueue }) => {
        const id = await startPev(client, taskQueue, {
          task: 'Rewrite notes.txt and confirm it.',
          options: { tools: { workspaceRoot: workspace } },
        });
        return pevResult(client, id);
      },
    );
    expect(result.finalText).toBe('notes.txt now says new text.');
    expect(result.pev.trace.filter((e) => e.type === 'tool_reused')).toEqual([]);
    expect(ticks).toBe(2);
    // The second read's result, as the model received it, is the new content.
    const request = fx.fake.requests.find((r) => JSON.stringify(r.body).includes('tick 1'))!;
    const results = anthropicMessages(request.body)
      .flatMap((m) => m.blocks)
      .filter((b) => b.type === 'tool_result')
      .map((b) => JSON.stringify(b.content));
    expect(results.filter((r) => r.includes('old text'))).toHaveLength(1);
    expect(results.filter((r) => r.includes('new text'))).toHaveLength(1);
    expect(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).toBe('new text');
  });

  it('reuses a read until a write in the same answer, a new cycle or a follow-up, and tells the model when it does', async () => {
    const notes = path.join(workspace, 'cycles.txt');
    fs.writeFileSync(notes, 'v0');
    const read = { name: 'fs_read', arguments: { path: 'cycles.txt' } };
    // Each step answers one request; the verifier's first answer also changes the file behind the run's back.
    const steps: (() => FakeStep)[] = [
      () => answer.plan([{ id: 'task-1', description: 'Read and rewrite cycles.txt' }]),
      () => reply.toolCalls([read]),
      () => reply.toolCalls([{ name: 'fs_write', arguments: { path: 'cycles.txt', content: 'v1' } }, read]),
      () => reply.toolCalls([read]),
      () => reply.toolCalls([read]),
      () => answer.executed('rewritten'),
      () => {
        fs.writeFileSync(notes, 'v2');
        return answer.improve('Read it once more');
      },
      () => answer.plan([{ id: 'task-2', description: 'Read cycles.txt again' }]),
      () => reply.toolCalls([read]),
      () => answer.executed('read'),
      () => answer.verified('cycles.txt read.'),
      () => answer.plan([{ id: 'task-3', description: 'Read cycles.txt for the follow-up' }]),
      () => reply.toolCalls([read]),
      () => answer.executed('read'),
      () => answer.verified('cycles.txt read again.'),
    ];
    fx.fake.respond(() => steps.shift()?.() ?? reply.error(500, { message: 'no step left' }));
    const result = await withWorker({ activities: activities() }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        session: { idleWaitMs: 60_000 },
        task: 'Rewrite cycles.txt and read it back.',
        kind: 'pev',
        model: PRIMARY,
        tools: { workspaceRoot: workspace },
      });
      await waitForState(agents, id, (s) => s.status === 'awaiting_follow_up');
      fs.writeFileSync(notes, 'v3');
      await agents.followUp(id, 'Read it once more, please.');
      await waitForState(
        agents,
        id,
        (s) => s.status === 'awaiting_follow_up' && s.finalText === 'cycles.txt read again.',
      );
      await agents.stop(id);
      const res = (await agents.result(id)) as PevAgentResult;
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'pev-dedupe-boundaries');
      return res;
    });
    expect(steps).toHaveLength(0);
    expect(result.finalText).toBe('cycles.txt read again.');
    // The reads as the model received them, in order: only the read right after an unchanged one was reused.
    const last = fx.fake.requests[fx.fake.requests.length - 1];
    const results = anthropicMessages(last.body)
      .flatMap((m) => m.blocks)
      .filter((b) => b.type === 'tool_result')
      .map((b) => (b.content as { text: string }[]).map((c) => c.text).join('\n'));
    expect(results).toEqual([
      'v0',
      'Wrote 2 bytes to cycles.txt.',
      'v1',
      'v1',
      expect.stringMatching(
        /^\[Identical call already made as \S+; its result is reused and the tool was not run again\.\]\nv1$/,
      ),
      'v2',
      'v3',
    ]);
    expect(result.pev.trace.filter((e) => e.type === 'tool_reused')).toEqual([
      expect.objectContaining({ cycle: 1, todoId: 'task-1', toolName: 'fs_read' }),
    ]);
  });
});
