/**
 * The tool phase of a turn: plan the calls and wait for decisions (`tool-plan.ts`), then run them
 * in order, in parallel where the tools allow, checking for steering and stop between executions.
 * Every call the model made gets exactly one result, executed or synthetic.
 */
import { TimeoutFailure, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { RunToolOutput } from '../../contracts/agent-activities';
import type { MessageDraft } from '../../contracts/message-drafts';
import { formatDuration } from '../../common/duration';
import { canonicalJson } from '../../common/canonical-json';
import type { MessageMeta, PinnedTool, ToolCallRequest } from '../../contracts/agent-run';
import { toolAnswered, toolRan, toolStarted } from '../../policy/tool-events';
import { injectSteering } from './user-messages';
import { awaitDecisions, groups, plan, resultFit, runnable, selectionRef, settle, type PlannedCall } from './tool-plan';
import { RUN_FEATURES } from '../features';
import {
  answeredCall,
  causeOf,
  conversationRef,
  emit,
  failureText,
  updateCurrentDetails,
  type RunContext,
} from './run-context';
import { writeToolLogs } from './notes';
import type { FeatureCall } from './feature';

export type ToolStepOutcome = 'continue' | 'steered' | 'stopped';

const SKIPPED_BY_STEERING = 'Skipped: the user redirected the agent before this tool call ran.';
const SKIPPED_BY_STOP = 'Not run: the run was stopped before this tool call ran.';

/** Decided approvals kept so a repeated decision is refused as "already decided". */
const DECIDED_APPROVALS_KEPT = 50;

function toolFailureText(name: string, err: unknown, timeoutMs: number): string {
  if (causeOf(err) instanceof TimeoutFailure) return `Tool "${name}" timed out after ${formatDuration(timeoutMs)}.`;
  return `Tool "${name}" failed: ${failureText(err)}`;
}

/** The feature that runs calls of `mode` itself (sub-agents, the plan tool), if one does. */
const runnerOf = (mode: PinnedTool['mode']) => RUN_FEATURES.find((f) => f.runs?.[mode])?.runs?.[mode];

/** The result a feature answers a call with instead of running it (an eval's served result), if one does. */
async function servedBy(ctx: RunContext, call: FeatureCall): Promise<MessageDraft | undefined> {
  for (const feature of RUN_FEATURES) {
    const served = feature.serves?.(ctx, call);
    const draft = served instanceof Promise ? await served : served;
    if (draft) return draft;
  }
  return undefined;
}

/** What running one call gave: the metadata of the result its activity stored (and its output), or a draft to write. */
interface Executed {
  meta?: MessageMeta;
  draft?: MessageDraft;
  out?: RunToolOutput;
}

/** Records that a call ran (its `tool_execution` event) and returns its stored result's metadata. */
function ranCall(ctx: RunContext, call: ToolCallRequest, seq: number, out: RunToolOutput): MessageMeta {
  emit(ctx, toolRan(call, out));
  return (
    out.meta ?? {
      seq,
      kind: 'tool_result',
      hash: out.hash ?? '',
      tokens: out.tokens ?? 0,
      toolCallId: call.id,
      isError: out.isError,
    }
  );
}

/**
 * Runs one planned call. `starting`: the answer's runnable calls of its mode that have not started
 * yet, this one included (the sub-agents feature splits the children's budget by it).
 */
async function execute(ctx: RunContext, p: PlannedCall, starting: number): Promise<Executed> {
  const { state } = ctx;
  const tool = p.tool as PinnedTool;
  const approval = state.approvals.find((a) => a.toolCallId === p.call.id);
  const args = approval?.editedArgs ?? p.call.arguments;
  const note = approval?.editedArgs
    ? `Note: the user edited the arguments before approving; the tool ran with ${canonicalJson(args)}.`
    : undefined;
  const override = state.config.limits.toolTimeoutsMs?.[tool.name];
  const timeoutMs = override ?? tool.timeoutMs;
  updateCurrentDetails(ctx, { running: [...ctx.current.running, { toolCallId: p.call.id, tool: tool.name, args }] });
  emit(ctx, toolStarted(p.call, args));
  try {
    const featureCall = { call: p.call, args, tool, starting };
    const served = await servedBy(ctx, featureCall);
    if (served) return { draft: served };
    const runner = runnerOf(tool.mode);
    if (runner) return { draft: await runner(ctx, featureCall) };
    const out = await ctx.io.runTool(
      {
        ...conversationRef(ctx),
        seq: p.seq,
        runId: workflowInfo().runId,
        toolCallId: p.call.id,
        name: tool.name,
        args,
        fingerprint: tool.fingerprint,
        ...selectionRef(ctx),
        ...(note ? { note } : {}),
        fit: resultFit(ctx),
        ...(override !== undefined ? { timeoutMs: override } : {}),
      },
      tool,
      timeoutMs,
    );
    return { meta: ranCall(ctx, p.call, p.seq, out), out };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { draft: answeredCall(ctx, p.call, toolFailureText(tool.name, err, timeoutMs), true) };
  } finally {
    updateCurrentDetails(ctx, { running: ctx.current.running.filter((c) => c.toolCallId !== p.call.id) });
  }
}

/** Writes the drafts of a group (results decided in the workflow) and records all metadata in log order. */
async function record(
  ctx: RunContext,
  metas: MessageMeta[],
  drafts: { seq: number; draft: MessageDraft }[],
): Promise<void> {
  const { state } = ctx;
  drafts.sort((a, b) => a.seq - b.seq);
  // One write per run of consecutive positions.
  for (let i = 0; i < drafts.length;) {
    let j = i + 1;
    while (j < drafts.length && drafts[j].seq === drafts[j - 1].seq + 1) j++;
    const run = drafts.slice(i, j);
    metas.push(
      ...(await ctx.io.appendMessages({
        conversationId: state.conversationId,
        startSeq: run[0].seq,
        drafts: run.map((d) => d.draft),
      })),
    );
    i = j;
  }
  metas.sort((a, b) => a.seq - b.seq);
  state.messages.push(...metas);
  for (const feature of RUN_FEATURES) {
    const writing = feature.written?.(ctx, metas);
    if (writing instanceof Promise) await writing;
  }
}

/** A result decided in the workflow for a planned call. */
const resultDraft = (p: PlannedCall, text: string, isError: boolean): MessageDraft => ({
  kind: 'tool_result',
  toolCallId: p.call.id,
  toolName: p.call.name,
  text,
  isError,
});

async function closeRemaining(ctx: RunContext, rest: PlannedCall[], text: string): Promise<string[]> {
  const drafts = rest.map((p) => ({ seq: p.seq, draft: resultDraft(p, text, true) }));
  for (const p of rest) {
    const approval = ctx.state.approvals.find((a) => a.toolCallId === p.call.id && a.state === 'pending');
    if (approval) approval.state = 'rejected';
    emit(ctx, toolAnswered(p.call, true, { skipped: text }));
  }
  await record(ctx, [], drafts);
  return rest.map((p) => p.call.name);
}

/** Records the results of calls the model call ran itself (`ModelCallOutput.toolResults`), in call order. */
export async function recordToolResults(
  ctx: RunContext,
  calls: readonly ToolCallRequest[],
  results: readonly RunToolOutput[],
): Promise<void> {
  const { state } = ctx;
  const startSeq = state.nextSeq;
  state.nextSeq += calls.length;
  await record(
    ctx,
    calls.map((call, i) => {
      emit(ctx, toolStarted(call, call.arguments));
      return ranCall(ctx, call, startSeq + i, results[i]);
    }),
    [],
  );
  const logs = writeToolLogs(ctx, results);
  if (logs) await logs;
}

/** Runs the tool calls of a turn. */
export async function runToolCalls(ctx: RunContext, calls: readonly ToolCallRequest[]): Promise<ToolStepOutcome> {
  const { state } = ctx;
  const startSeq = state.nextSeq;
  state.nextSeq += calls.length;
  const planned = plan(ctx, calls, startSeq);
  await awaitDecisions(ctx);
  settle(ctx, planned);
  const batches = groups(planned, Object.assign({}, ...RUN_FEATURES.map((f) => f.together?.(state.config))));
  // A feature that runs a call is told how many runnable calls of its mode are still to start, this one included.
  const toStart = planned.filter((p) => runnable(ctx, p));
  const startingWith = (p: PlannedCall): number => {
    const same = toStart.filter((q) => q.tool?.mode === p.tool?.mode);
    return same.length - same.indexOf(p);
  };
  let outcome: ToolStepOutcome = 'continue';
  const ran: Executed[] = [];
  // The Web UI's timeline shows a local activity without its summary: the next model call's names these calls.
  const ranLocally: ToolCallRequest[] = [];
  for (let b = 0; b < batches.length; b++) {
    const rest = batches.slice(b).flat();
    if (state.stopRequested) {
      await closeRemaining(ctx, rest, SKIPPED_BY_STOP);
      outcome = 'stopped';
      break;
    }
    if (state.steering.length > 0) {
      const skipped = await closeRemaining(ctx, rest, SKIPPED_BY_STEERING);
      await injectSteering(ctx, skipped);
      outcome = 'steered';
      break;
    }
    const batch = batches[b];
    const done = await Promise.all(
      batch.map((p) => (runnable(ctx, p) ? execute(ctx, p, startingWith(p)) : Promise.resolve<Executed>({}))),
    );
    ran.push(...done);
    ranLocally.push(...batch.filter((p, i) => done[i].out && p.tool?.local === true).map((p) => p.call));
    const metas = done.flatMap((d) => (d.meta ? [d.meta] : []));
    const drafts = batch.flatMap((p, i) => {
      const d = done[i];
      if (d.draft) return [{ seq: p.seq, draft: d.draft }];
      if (p.result) {
        if (p.mode === 'client')
          emit(ctx, {
            type: 'client_tool_result',
            toolCallId: p.call.id,
            tool: p.call.name,
            isError: p.result.isError,
          });
        return [{ seq: p.seq, draft: resultDraft(p, p.result.text, p.result.isError) }];
      }
      return runnable(ctx, p) ? [] : [{ seq: p.seq, draft: resultDraft(p, SKIPPED_BY_STOP, true) }];
    });
    await record(ctx, metas, drafts);
  }
  const logs = writeToolLogs(
    ctx,
    ran.map((d) => d.out),
  );
  if (logs) await logs;
  if (ranLocally.length > 0) ctx.current.ran = { step: ctx.current.step, calls: ranLocally };
  const decided = state.approvals.filter((a) => a.state !== 'pending');
  state.approvals = [
    ...decided.slice(-DECIDED_APPROVALS_KEPT),
    ...state.approvals.filter((a) => a.state === 'pending'),
  ];
  // Every call of the turn has its result now, including client calls cut short by steering or stop.
  const answered = new Set(calls.map((c) => c.id));
  state.clientTools = state.clientTools.filter((c) => !answered.has(c.toolCallId));
  return outcome;
}
