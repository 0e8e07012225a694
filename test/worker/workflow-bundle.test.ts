/**
 * The workflow bundle a worker loads: its inline source map keeps what stack traces read (the
 * mappings and the sources' names) without the sources' text, and names the file it was written to;
 * a run's stack trace, read through the server as the Web UI reads it, still names the source files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { inlineSourceMap } from '../../src/server/workflow-bundle';
import { reply } from '../../src/testing/fake-provider';
import { withWorker, workflowBundle } from '../kit/temporal';
import { PRIMARY, useAgentFixture, waitForState } from '../agent/agent-kit';

/** The inline source map of the bundle at `file`. */
function sourceMapOf(file: string): Record<string, unknown> {
  const inline = inlineSourceMap(fs.readFileSync(file, 'utf8'));
  if (!inline) throw new Error(`${file} has no inline source map`);
  return inline.map;
}

describe('the workflow bundle', () => {
  const fx = useAgentFixture();

  it('keeps the mappings and source names but not the sources, and names the file it was written to', () => {
    const file = workflowBundle().codePath;
    const map = sourceMapOf(file);
    expect(map).not.toHaveProperty('sourcesContent');
    expect(map.file).toBe(path.resolve(file));
    expect(typeof map.mappings).toBe('string');
    expect((map.mappings as string).length).toBeGreaterThan(100_000);
    expect(map.sources).toEqual(
      expect.arrayContaining([expect.stringMatching(/src\/workflows\/agent\/run-agent\.ts$/)]),
    );
    // The map is the smaller part of the file now: the sources' text was most of it.
    const { size } = fs.statSync(file);
    expect(JSON.stringify(map).length).toBeLessThan(size / 2);
  });

  it("maps a waiting run's stack trace to the source files, lines and columns", async () => {
    fx.fake.script(reply.toolCalls([{ name: 'write_note', arguments: { text: 'later' }, id: 'toolu_wait' }]));
    const trace = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ tools: { approve: ['write_note'] }, task: 'Write a note.', model: PRIMARY });
      await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
      const handle = client.workflow.getHandle(id);
      const stack = await handle.query<string>('__stack_trace');
      await handle.terminate('test over');
      return stack;
    });
    // Unmapped, the frames would name the bundle file and its lines.
    expect(trace).toMatch(/src\/workflows\/agent\/[a-z-]+\.ts:\d+:\d+/);
    expect(trace).not.toContain(path.basename(workflowBundle().codePath));
  });
});
