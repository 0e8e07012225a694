/**
 * Notes a client sends into a run's log (`addNote`, docs/hooks.md, Notes): kept in the run's state
 * and written at its next turn, or as it ends, where no tool result is outstanding; the model never
 * sees them.
 */
import { setHandler } from '@temporalio/workflow';
import { addNoteSignal } from '../../contracts/agent-workflows';
import { drain, firstDelivery } from '../../policy/queues';
import type { RunFeature } from '../agent/feature';
import { writeNotes } from '../agent/notes';
import type { RunContext } from '../agent/run-context';

/** Writes the notes clients sent since the last time; at once when there are none. */
function takeNotes(ctx: RunContext): Promise<void> | undefined {
  const queued = drain(ctx.state.notes ?? []);
  if (queued.length === 0) return undefined;
  return writeNotes(
    ctx,
    queued.map(({ kind, text }) => ({ kind, text })),
  );
}

export const clientNotes: RunFeature = {
  name: 'client notes',
  register({ state }) {
    setHandler(addNoteSignal, (note) => {
      const kind = note?.kind ?? 'context_note';
      if (state.stopReason !== undefined || (kind !== 'context_note' && kind !== 'system_event')) return;
      if (firstDelivery(state, note)) (state.notes ??= []).push({ id: note.id, text: note.text, kind });
    });
  },
  turnStart: takeNotes,
  ending: takeNotes,
};
