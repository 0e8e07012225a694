/**
 * Reuse of identical tool calls in a pev run never returns a stale result: a read after a write of
 * the same file reads the new content, and a tool that opts out is run again, on a real server with
 * the built-in file tools in a workspace.
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
import { reply } from '../../src/testing/fake-provider';
import { withWorker } from '../kit/temporal';
import { anthropicMessages } from '../agent/agent-kit';
import { answer, pevResult, startPev, usePevFixture } from './pev-kit';

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
});
