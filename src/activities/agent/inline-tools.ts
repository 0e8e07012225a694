/**
 * Quick tool calls run by the model call itself, right after the answer
 * (`ModelCallInput.inlineTools`): each through the same `runTool` as a call the workflow schedules,
 * so its result is stored the same way. All or nothing: when a call is not one the workflow handed
 * over, or the approval gate asks for a decision on one (`runsInline`), or one fails to run or to be
 * stored, the model call returns no results and the workflow runs the calls as usual (a result stored
 * meanwhile is written again by the later call). Watchers see each call begin and end on the run's
 * token stream as it happens; the run records the same events when the model call returns.
 */
import { errorText } from '../../common/error-text';
import { log } from '@temporalio/activity';
import type { InlineToolCalls, RunToolInput, RunToolOutput } from '../../contracts/agent-activities';
import type { ToolCallRequest } from '../../contracts/agent-run';
import { DEFAULT_TOOL_PARALLELISM } from '../../contracts/tool-catalog';
import type { RunApprovals } from '../../policy/approval-rules';
import { runsInline } from '../../policy/quick-tools';
import { toolRan, toolStarted } from '../../policy/tool-events';
import type { QuickToolEvent } from '../../contracts/token-stream';
import { activityContext } from '../heartbeat';

export type RunTool = (input: RunToolInput) => Promise<RunToolOutput>;

/** Publishes a quick call's event for watchers as it happens; never throws. */
export type PublishToolEvent = (event: QuickToolEvent) => Promise<void>;

/**
 * The calls' results in call order, stored at `firstSeq`, `firstSeq + 1`, …; or undefined when they
 * are the workflow's to run. `publish` tells watchers as each call begins and ends, before the
 * workflow records it.
 */
export async function runInlineTools(
  inline: InlineToolCalls,
  calls: readonly ToolCallRequest[],
  at: { conversationId?: string; firstSeq: number },
  tools: { runTool: RunTool; publish: PublishToolEvent },
  approvals: RunApprovals,
): Promise<RunToolOutput[] | undefined> {
  // The one approval gate, per call, as the workflow asks it for the calls it runs.
  if (!runsInline(inline, calls, approvals)) return undefined;
  const fingerprints = new Map(Object.entries(inline.tools));
  const ctx = activityContext();
  const runId = ctx?.info.workflowExecution?.runId ?? '';
  const inputOf = (call: ToolCallRequest, i: number): RunToolInput => {
    const timeoutMs = inline.timeoutsMs?.[call.name];
    return {
      ...(at.conversationId ? { conversationId: at.conversationId } : {}),
      seq: at.firstSeq + i,
      runId,
      toolCallId: call.id,
      name: call.name,
      args: call.arguments,
      fingerprint: fingerprints.get(call.name),
      ...(inline.selectionHash ? { selectionHash: inline.selectionHash } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(inline.fit ? { fit: inline.fit } : {}),
    };
  };
  const results: RunToolOutput[] = [];
  try {
    for (let i = 0; i < calls.length; i += DEFAULT_TOOL_PARALLELISM) {
      const batch = calls.slice(i, i + DEFAULT_TOOL_PARALLELISM);
      const run = async (call: ToolCallRequest, k: number): Promise<RunToolOutput> => {
        await tools.publish(toolStarted(call, call.arguments));
        const out = await tools.runTool(inputOf(call, i + k));
        await tools.publish(toolRan(call, out));
        return out;
      };
      results.push(...(await Promise.all(batch.map(run))));
    }
  } catch (err) {
    if (ctx?.cancellationSignal.aborted) throw err;
    log.warn('Quick tool calls left to the workflow', { error: errorText(err) });
    return undefined;
  }
  return results;
}
