/** The bounded event list a run keeps in its state. */
import type { AgentEvent } from '../contracts/agent-events';

/** Events kept in state; older ones are dropped (and counted). */
export const MAX_EVENTS_IN_STATE = 400;
/** Events carried across continue-as-new. */
export const EVENTS_CARRIED = 100;

/** Appends an event, dropping the oldest past `max`. Returns the number dropped. */
export function pushEvent(events: AgentEvent[], event: AgentEvent, max = MAX_EVENTS_IN_STATE): number {
  events.push(event);
  const over = Math.max(0, events.length - max);
  events.splice(0, over);
  return over;
}
