/**
 * Steering and follow-up queues (docs/design.md, Steering and follow-ups) with duplicate delivery dropped by message
 * id.
 */
import type { QueuedMessage } from '../contracts/agent-run';

/** Ids remembered for de-duplication. */
export const SEEN_IDS_KEPT = 1_000;

export interface QueueOwner {
  seenMessageIds: string[];
}

/** Whether `msg` is well formed (a non-empty id and text) and its id new; remembers the id. */
export function firstDelivery(owner: QueueOwner, msg: QueuedMessage): boolean {
  const wellFormed =
    typeof msg?.id === 'string' && msg.id.length > 0 && typeof msg.text === 'string' && msg.text.trim().length > 0;
  if (!wellFormed || owner.seenMessageIds.includes(msg.id)) return false;
  owner.seenMessageIds.push(msg.id);
  if (owner.seenMessageIds.length > SEEN_IDS_KEPT)
    owner.seenMessageIds.splice(0, owner.seenMessageIds.length - SEEN_IDS_KEPT);
  return true;
}

/** Queues `msg` unless its id was seen before. Returns whether it was queued. */
export function enqueueOnce(owner: QueueOwner, queue: QueuedMessage[], msg: QueuedMessage): boolean {
  if (!firstDelivery(owner, msg)) return false;
  queue.push({ id: msg.id, text: msg.text });
  return true;
}

/** Empties a queue, returning what it held in arrival order. */
export function drain<T>(queue: T[]): T[] {
  return queue.splice(0, queue.length);
}
