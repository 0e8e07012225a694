/**
 * The worker's `runStream` sink: appends the events a streaming model call follows to the run's
 * token stream as the workflow task that makes the call completes, so a watcher shows them before
 * the call's tokens without waiting for its read of the run, which the worker answers between the
 * workflow tasks of every run it holds. Best effort, as tokens are, and off the workflow task's
 * path: the write is not awaited, a failed one is logged once, and a watcher then waits for its
 * read. The SDK does not call it while a workflow replays.
 */
import { Runtime, type InjectedSinks } from '@temporalio/worker';
import type { RunStreamSinks, TokenStreamWriter } from '../contracts/token-stream';

/** The sink writing to `store`; without one (a replay worker) it writes nothing. */
export function eventsAheadSink(store: TokenStreamWriter | undefined): InjectedSinks<RunStreamSinks> {
  let failed = false;
  return {
    runStream: {
      eventsAhead: {
        fn: (info, after, entries) => {
          if (!store) return;
          store.appendTokens(info.workflowId, [{ type: 'events', after, entries, at: Date.now() }]).catch((err) => {
            if (!failed)
              Runtime.instance().logger.warn('token stream write failed; watchers read the events from the run', {
                error: String(err),
              });
            failed = true;
          });
        },
        callDuringReplay: false,
      },
    },
  };
}
