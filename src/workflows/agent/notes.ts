/**
 * Entries of the log that the model never sees (docs/hooks.md, Notes): a context note with each
 * change of model, system events, tool logs. Each is written where no tool result is outstanding,
 * so the log has no gap.
 */
import type { RunToolOutput } from '../../contracts/agent-activities';
import type { MessageDraft } from '../../contracts/message-drafts';
import type { ModelSwitch } from '../../contracts/model-resolution';
import { switchNote } from '../../policy/log-notes';
import { emit, type RunContext } from './run-context';
import { appendDrafts } from './user-messages';

type NoteDraft = Extract<MessageDraft, { kind: 'context_note' | 'system_event' | 'tool_log' }>;

/** Writes notes at the end of the log. */
export async function writeNotes(ctx: RunContext, notes: NoteDraft[]): Promise<void> {
  await appendDrafts(ctx, notes);
}

/** Records a change of model: its `provider_switch` event and a context note in the log. */
export async function recordSwitch(ctx: RunContext, change: ModelSwitch): Promise<void> {
  emit(ctx, { type: 'provider_switch', fromModel: change.from, toModel: change.to, reason: change.reason });
  await writeNotes(ctx, [{ kind: 'context_note', text: switchNote(change) }]);
}

/**
 * Writes the logs of a turn's tool calls (stored by the calls), once every call of the turn has its
 * result; nothing to wait for when no call left a log.
 */
export function writeToolLogs(
  ctx: RunContext,
  outputs: readonly (RunToolOutput | undefined)[],
): Promise<void> | undefined {
  const hashes = outputs.flatMap((out) => (out?.logHash ? [out.logHash] : []));
  if (hashes.length === 0) return undefined;
  return writeNotes(
    ctx,
    hashes.map((bodyHash) => ({ kind: 'tool_log', text: '', bodyHash })),
  );
}
