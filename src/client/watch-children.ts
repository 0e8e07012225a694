/**
 * `watch(id, { children: true })`: a run's items with the events of its child runs (sub-agents
 * and todos a kind runs as children, at any depth) merged in as they happen. Each child is followed
 * from its parent's `child_start` event to its own end.
 */
import type { AgentEvent } from '../contracts/agent-events';
import { EVENTS_TOPIC, type WatchItem } from '../contracts/watch-topics';
import { childTag } from '../policy/sub-agents';

/** The topic of {@link ChildEventItem}s: the client makes them from the children's own streams. */
export const CHILDREN_TOPIC = 'children';

/** Which child an item comes from, and where it sits under the watched run. */
export interface ChildOfWatch {
  /** The child's workflow id. */
  id: string;
  /** The name its parent gives it. */
  agent: string;
  /** What started it: the call's id, or `todo <id>`. */
  tag: string;
  /** 1 for a child of the watched run, 2 for a grandchild, … */
  depth: number;
}

/** An event of a child run. */
export interface ChildEventItem {
  topic: typeof CHILDREN_TOPIC;
  child: ChildOfWatch;
  event: AgentEvent;
}

type Source<T> = { items: AsyncIterator<T | WatchItem>; child?: ChildOfWatch };

/** The child a `child_start` event of a run at `depth` starts. */
function childOf(item: unknown, depth: number): ChildOfWatch | undefined {
  const { topic, event } = item as { topic?: string; event?: AgentEvent };
  if (topic !== EVENTS_TOPIC || event?.type !== 'child_start') return undefined;
  return { id: event.childId, agent: event.agent, tag: childTag(event), depth: depth + 1 };
}

/** The child run a `child_end` event reports ended. */
function endedChildOf(item: unknown): string | undefined {
  const { topic, event } = item as { topic?: string; event?: AgentEvent };
  return topic === EVENTS_TOPIC && event?.type === 'child_end' ? event.childId : undefined;
}

/**
 * `items`, with the events of every child run merged in, in the order they arrive. `follow(id)`
 * gives a child's own watch items (its events; its tokens are left out). A run's `child_end` waits
 * until the child's own items have ended, so a child's last events come before its parent says it
 * ended, however the two streams are read.
 */
export async function* withChildren<T>(
  items: AsyncIterator<T>,
  follow: (id: string) => AsyncIterator<WatchItem>,
): AsyncGenerator<T | ChildEventItem, void, undefined> {
  const sources: Source<T>[] = [{ items }];
  const pending = new Map<Source<T>, Promise<{ source: Source<T>; next: IteratorResult<T | WatchItem> }>>();
  /** Children whose items have not ended, by id. */
  const open = new Set<string>();
  /** Items of a run held until the child they report the end of has ended, by that child's id. */
  const held = new Map<string, { source: Source<T>; value: T | WatchItem }[]>();
  const pull = (source: Source<T>) => {
    const read = source.items.next().then((next) => ({ source, next }));
    pending.set(source, read);
  };
  /** What `value` of `source` yields; a child it starts is followed from here. */
  const deliver = (source: Source<T>, value: T | WatchItem): (T | ChildEventItem)[] => {
    const started = childOf(value, source.child?.depth ?? 0);
    if (started) {
      const child: Source<T> = { items: follow(started.id), child: started };
      sources.push(child);
      open.add(started.id);
      pull(child);
    }
    if (!source.child) return [value as T];
    const { topic, event } = value as WatchItem & { event?: AgentEvent };
    return topic === EVENTS_TOPIC && event ? [{ topic: CHILDREN_TOPIC, child: source.child, event }] : [];
  };
  pull(sources[0]);
  try {
    while (pending.size > 0) {
      const { source, next } = await Promise.race(pending.values());
      pending.delete(source);
      if (next.done) {
        if (!source.child) continue;
        open.delete(source.child.id);
        for (const h of held.get(source.child.id) ?? []) {
          yield* deliver(h.source, h.value);
          pull(h.source);
        }
        held.delete(source.child.id);
        continue;
      }
      const ended = endedChildOf(next.value);
      if (ended !== undefined && open.has(ended)) {
        held.set(ended, [...(held.get(ended) ?? []), { source, value: next.value }]);
        continue;
      }
      pull(source);
      yield* deliver(source, next.value);
    }
  } finally {
    // A watch left early leaves its children's polls to end on their own.
    for (const s of sources) void Promise.resolve(s.items.return?.()).catch(() => undefined);
  }
}
