import { pushEvent } from '../../../src/policy/event-log';
import type { AgentEvent } from '../../../src/contracts/agent-events';

describe('event log', () => {
  it('keeps a bounded event trace', () => {
    const events: AgentEvent[] = [];
    let dropped = 0;
    for (let i = 0; i < 5; i++) dropped += pushEvent(events, { type: 'turn_start', model: 'm', at: i, turn: i }, 3);
    expect(events.map((e) => e.turn)).toEqual([2, 3, 4]);
    expect(dropped).toBe(2);
  });
});
