/**
 * The application's `transformContext` hook (docs/hooks.md, Context transforms): before a model
 * call it may rewrite what the model sees. It works by reference: it reads the view from the store
 * and stores the messages it wants sent; the workflow passes their hash on to the model call.
 */
import { isCancellation } from '@temporalio/workflow';
import { modelLabel, type ModelRef } from '../../contracts/model-ref';
import { emit, failureText, type RunContext } from '../agent/run-context';
import { hookActivity } from './hook-activity';

const CONTENT_HASH = /^[0-9a-f]{64}$/;

/**
 * The run's `transformContext` hook (`hook`), before a model call to `model`: the hash of the
 * provider messages it stored, or undefined to send the view as it is (no answer, or a failure,
 * which is recorded as a `hook_failed` event).
 */
export async function contextHook(ctx: RunContext, model: ModelRef, hook: string): Promise<string | undefined> {
  const { state } = ctx;
  try {
    const out = await hookActivity(ctx, 'transformContext', hook, {
      conversationId: state.conversationId,
      turn: state.turn,
      step: ctx.current.step,
      model: modelLabel(model),
      view: state.view,
      toSeq: state.nextSeq,
      ...(state.maskBefore ? { maskBefore: state.maskBefore } : {}),
    });
    if (out === null || out === undefined) return undefined;
    if (typeof out.messagesHash !== 'string' || !CONTENT_HASH.test(out.messagesHash))
      throw new Error(`it answered without the content hash of the messages it stored (messagesHash)`);
    emit(ctx, {
      type: 'context_transformed',
      hook,
      messagesHash: out.messagesHash,
      ...(out.note ? { note: out.note } : {}),
    });
    return out.messagesHash;
  } catch (err) {
    if (isCancellation(err)) throw err;
    emit(ctx, { type: 'hook_failed', hook: 'transformContext', message: failureText(err) });
    return undefined;
  }
}
