import { CHILDREN_TOPIC, withChildren, type ChildEventItem } from '../../src/client/watch-children';
import type { AgentEvent } from '../../src/contracts/agent-events';
import { EVENTS_TOPIC, type WatchItem } from '../../src/contracts/watch-topics';

const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
const at = (event: Partial<AgentEvent> & { type: string }, offset: number): WatchItem =>
  ({ topic: EVENTS_TOPIC, offset, event: { at: offset, turn: 1, ...event } }) as WatchItem;

/** Yields `items`, each after `ms` more. */
async function* slowly(items: WatchItem[], ms: number): AsyncGenerator<WatchItem, void, undefined> {
  for (const item of items) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    yield item;
  }
}

const line = (item: WatchItem | ChildEventItem): string =>
  item.topic === CHILDREN_TOPIC ? `child ${item.event.type}` : item.topic === EVENTS_TOPIC ? item.event.type : 'tokens';

describe("a run's watch with its children", () => {
  it("gives a child's last events before its parent says the child ended, however late the child's stream reads", async () => {
    const parent = slowly(
      [
        at({ type: 'child_start', agent: 'researcher', childId: 'c1', toolCallId: 't1', task: 'look' }, 0),
        at(
          {
            type: 'child_end',
            agent: 'researcher',
            childId: 'c1',
            toolCallId: 't1',
            status: 'completed',
            usage,
            costUsd: 0,
          },
          1,
        ),
        at({ type: 'done', stopReason: 'completed', finalText: 'ok', turns: 1, usage, costUsd: 0 }, 2),
      ],
      5,
    );
    // The child's stream is read far more slowly than its parent's.
    const child = () =>
      slowly(
        [
          at({ type: 'turn_start', model: 'm' }, 0),
          at({ type: 'done', stopReason: 'completed', finalText: 'x', turns: 1, usage, costUsd: 0 }, 1),
        ],
        60,
      );
    const seen: string[] = [];
    for await (const item of withChildren(parent, child)) seen.push(line(item));
    expect(seen).toEqual(['child_start', 'child turn_start', 'child done', 'child_end', 'done']);
  });
});
