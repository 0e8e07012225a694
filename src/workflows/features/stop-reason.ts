/**
 * How a run ended, as a search attribute (`DurableAgentStopReason`): written once, as the run ends,
 * so `list --stop-reason` and a visibility query find the runs a limit, a budget or an operator cut
 * off, which the status alone calls completed or stopped.
 */
import { patched, upsertSearchAttributes } from '@temporalio/workflow';
import { AGENT_SEARCH_ATTRIBUTES as SA } from '../../contracts/search-attributes';
import type { RunFeature } from '../agent/feature';

/**
 * The patch of the upsert: runs recorded before it end with no such upsert. Retired at the next
 * baseline (docs/design.md, Replay and patch policy), once the builds before it are drained.
 */
export const STOP_REASON_PATCH = 'stop-reason-attribute';

export const stopReasonAttribute: RunFeature = {
  name: 'stop reason attribute',
  ending(run, reason) {
    if (run.state.config.searchAttributes !== false && patched(STOP_REASON_PATCH))
      upsertSearchAttributes([{ key: SA.stopReason, value: reason }]);
  },
};
