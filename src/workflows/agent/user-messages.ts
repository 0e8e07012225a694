/** Messages that originate in the workflow: the task, steering and follow-ups. */
import type { MessageDraft, UserOrigin } from '../../contracts/message-drafts';
import { drain } from '../../policy/queues';
import type { MessageMeta, QueuedMessage } from '../../contracts/agent-run';
import { condition } from '@temporalio/workflow';
import { formatDuration } from '../../common/duration';
import { emit, publishSearchAttributes, updateCurrentDetails, type RunContext } from './run-context';
import { previewText } from '../../policy/previews';

/** Writes drafts at the end of the log and records their metadata. */
export async function appendDrafts(ctx: RunContext, drafts: MessageDraft[]): Promise<MessageMeta[]> {
  const { state } = ctx;
  if (drafts.length === 0) return [];
  const startSeq = state.nextSeq;
  state.nextSeq += drafts.length;
  const metas = await ctx.io.appendMessages({ conversationId: state.conversationId, startSeq, drafts });
  state.messages.push(...metas);
  return metas;
}

const userDrafts = (queued: QueuedMessage[], origin: UserOrigin): MessageDraft[] =>
  queued.map((m) => ({ kind: 'user', text: m.text, origin }));

/**
 * Moves queued steering into the conversation and returns it (at once when there is none);
 * `skippedTools` are the calls it cut short.
 */
export function injectSteering(
  ctx: RunContext,
  skippedTools: string[] = [],
): QueuedMessage[] | Promise<QueuedMessage[]> {
  const queued = drain(ctx.state.steering);
  return queued.length === 0 ? [] : appendSteering(ctx, queued, skippedTools);
}

async function appendSteering(
  ctx: RunContext,
  queued: QueuedMessage[],
  skippedTools: string[],
): Promise<QueuedMessage[]> {
  await appendDrafts(ctx, userDrafts(queued, 'steering'));
  for (const m of queued) emit(ctx, { type: 'steering', messageId: m.id, text: previewText(m.text), skippedTools });
  return queued;
}

/**
 * Moves queued follow-ups (and steering that came too late to redirect anything) into the
 * conversation and tells the kind (its `followUps` hook); true when there were any. With none
 * queued and `idleWaitMs` set, the run waits that long for one (status `awaiting_follow_up`); a
 * stop ends the wait.
 */
export async function injectFollowUps(ctx: RunContext): Promise<boolean> {
  if (await takeQueued(ctx)) return true;
  const { state } = ctx;
  const wait = state.config.session?.idleWaitMs;
  if (!wait || state.stopRequested) return false;
  const summary = `waiting up to ${formatDuration(wait)} for a follow-up`;
  state.status = 'awaiting_follow_up';
  updateCurrentDetails(ctx, { doing: summary });
  publishSearchAttributes(ctx, 'idle');
  const queued = () => state.followUps.length > 0 || state.steering.length > 0;
  await condition(() => queued() || state.stopRequested !== undefined, wait, { summary });
  state.status = 'running';
  publishSearchAttributes(ctx, 'running');
  if (state.stopRequested) return false;
  return takeQueued(ctx);
}

async function takeQueued(ctx: RunContext): Promise<boolean> {
  const injected = injectSteering(ctx);
  const steering = injected instanceof Promise ? await injected : injected;
  const queued = drain(ctx.state.followUps);
  if (queued.length > 0) {
    await appendDrafts(ctx, userDrafts(queued, 'follow_up'));
    for (const m of queued) emit(ctx, { type: 'follow_up', messageId: m.id, text: previewText(m.text) });
  }
  const texts = [...steering, ...queued].map((m) => m.text);
  if (texts.length === 0) return false;
  ctx.followUps?.(texts);
  return true;
}
