/**
 * A quick tool call runs inside the model call, so the run records its events only when the call
 * returns; a watcher with the workers' store sees it begin and end while it runs, from the run's
 * token stream, and each of its events once.
 */
import { z } from 'zod';
import { AgentClient } from '../../src/client';
import type { AgentEvent } from '../../src/contracts/agent-events';
import type { WatchItem } from '../../src/contracts/watch-topics';
import { reply } from '../../src/testing/fake-provider';
import { defineTool } from '../../src/tools';
import { withWorker } from '../kit/temporal';
import { Latch, PRIMARY, useAgentFixture } from './agent-kit';

/** `peek` runs until the test opens its latch. */
const gate = { latch: new Latch(), runs: 0 };

const peek = defineTool({
  name: 'peek',
  description: 'Peeks at a stored value.',
  parameters: z.object({ key: z.string() }),
  timeoutMs: 10_000,
  execute: async ({ key }, ctx) => {
    gate.runs += 1;
    const aborted = new Promise<void>((resolve) =>
      ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    await Promise.race([gate.latch.opened, aborted]);
    return `${key} is 42`;
  },
});

const eventsOf = (items: WatchItem[]): AgentEvent[] => items.flatMap((i) => (i.topic === 'events' ? [i.event] : []));

describe('a quick tool call in a watch', () => {
  const fx = useAgentFixture({}, { tools: [peek] });

  it.each([
    ['a run that does not stream', false],
    ['a streaming run', true],
  ])(
    '%s: shows the call begin while it still runs inside the model call, and each of its events once',
    async (_, stream) => {
      gate.latch = new Latch();
      gate.runs = 0;
      fx.fake.script(
        reply.toolCalls([{ name: 'peek', arguments: { key: 'x' }, id: 'toolu_peek1' }]),
        reply.text('x is 42.'),
      );
      await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
        const agents = new AgentClient(client, taskQueue, { store: fx.store });
        const id = await agents.start({ task: 'Peek at x.', model: PRIMARY, stream });
        // Without the start shown while the call runs, the latch opens after 6 s so the run still ends.
        let openedByTimer = false;
        const timer = setTimeout(() => {
          openedByTimer = true;
          gate.latch.open();
        }, 6_000);
        const items: WatchItem[] = [];
        let seenWhileRunning = false;
        try {
          for await (const item of agents.watch(id)) {
            items.push(item);
            if (item.topic === 'events' && item.event.type === 'tool_start' && !openedByTimer) {
              seenWhileRunning = gate.runs === 1;
              gate.latch.open();
            }
          }
        } finally {
          clearTimeout(timer);
        }
        expect(seenWhileRunning).toBe(true);
        // It ran once, inside the model call: the workflow ran no call of its own.
        expect(gate.runs).toBe(1);
        const history = await client.workflow.getHandle(id).fetchHistory();
        const activities = history.events!.flatMap((e) => {
          const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
          return name ? [name] : [];
        });
        expect(activities).toEqual(['callModel', 'callModel']);

        const events = eventsOf(items);
        const tool = events.filter((e) => e.type === 'tool_start' || e.type === 'tool_execution');
        expect(tool).toEqual([
          expect.objectContaining({
            type: 'tool_start',
            toolCallId: 'toolu_peek1',
            tool: 'peek',
            args: '{"key":"x"}',
            turn: 1,
          }),
          expect.objectContaining({ type: 'tool_execution', toolCallId: 'toolu_peek1', isError: false, turn: 1 }),
        ]);
        expect(events.at(-1)).toMatchObject({ type: 'done', finalText: 'x is 42.' });
        // The run's recorded events are as they were: its own tool_start and tool_execution.
        const recorded = (await agents.state(id)).events.filter((e) => e.type.startsWith('tool_'));
        expect(recorded.map((e) => e.type)).toEqual(['tool_start', 'tool_execution']);
      });
    },
  );
});
