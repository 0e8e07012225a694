/**
 * The first half of the tool phase: each call of an answer gets its mode (server, client, needs
 * approval) or a result decided at once (malformed, unknown tool); the run waits for approvals and
 * client results; decisions become results; the calls that may run are grouped for execution.
 */
import { argsPreview } from '../../policy/previews';
import { condition } from '@temporalio/workflow';
import { formatDuration } from '../../common/duration';
import type { PinnedTool, ToolCallRequest } from '../../contracts/agent-run';
import { DEFAULT_TOOL_PARALLELISM, type ToolMode } from '../../contracts/tool-catalog';
import type { InlineToolCalls, ResultFit } from '../../contracts/agent-activities';
import { quickToolCalls, resultFitFor } from '../../policy/quick-tools';
import { modelWindow } from '../../policy/context-plan';
import { approvalDecided, argsHash, callMode, expireApprovals } from '../../policy/approval-rules';
import { decisionWaitSummary } from '../../policy/run-summaries';
import { RUN_FEATURES } from '../features';
import type { DecisionWait } from './feature';
import { emit, publishSearchAttributes, updateCurrentDetails, type RunContext } from './run-context';

/** Tells every feature that what waits for a person in the run changed. */
export async function waitsChanged(ctx: RunContext): Promise<void> {
  // Awaited for every feature, with the seam or not: recorded runs' handlers interleave with these awaits.
  for (const feature of RUN_FEATURES) await feature.waitsChanged?.(ctx);
}

/** `body` inside every feature's wrapper of a wait for decisions (its span). */
const aroundWait = (ctx: RunContext, wait: DecisionWait, body: () => Promise<string>): Promise<string> =>
  RUN_FEATURES.reduceRight<() => Promise<string>>(
    (inner, feature) => (feature.aroundWait ? () => feature.aroundWait!(ctx, wait, inner) : inner),
    body,
  )();

export interface PlannedCall {
  call: ToolCallRequest;
  seq: number;
  tool?: PinnedTool;
  mode?: ToolMode;
  /** A result decided without running the tool (malformed, unknown, rejected, client-submitted). */
  result?: { text: string; isError: boolean };
}

export function plan(ctx: RunContext, calls: readonly ToolCallRequest[], startSeq: number): PlannedCall[] {
  const { state } = ctx;
  return calls.map((call, i) => {
    const seq = startSeq + i;
    if (call.malformed)
      return {
        call,
        seq,
        result: { text: `Not run: ${call.malformed}. Call the tool again with complete arguments.`, isError: true },
      };
    const tool = state.tools.find((t) => t.name === call.name);
    if (!tool) {
      const names = state.tools.map((t) => t.name).join(', ') || 'none';
      return { call, seq, result: { text: `Unknown tool "${call.name}". Available tools: ${names}.`, isError: true } };
    }
    const { tools } = state.config;
    const mode = callMode(tool, call.arguments, { approve: tools.approve, rules: tools.approvals });
    if (mode === 'approval') {
      const hash = argsHash(call.arguments);
      state.approvals.push({
        toolCallId: call.id,
        tool: call.name,
        args: call.arguments,
        argsHash: hash,
        turn: state.turn,
        state: 'pending',
      });
      emit(ctx, {
        type: 'approval_required',
        toolCallId: call.id,
        tool: call.name,
        argsHash: hash,
        args: argsPreview(call.arguments),
      });
    } else if (mode === 'client') {
      state.clientTools.push({ toolCallId: call.id, tool: call.name, args: call.arguments, turn: state.turn });
      emit(ctx, { type: 'client_tool_request', toolCallId: call.id, tool: call.name });
    }
    return { call, seq, tool, mode };
  });
}

const unsettled = (ctx: RunContext): boolean =>
  ctx.state.approvals.some((a) => a.state === 'pending') || ctx.state.clientTools.some((c) => c.result === undefined);

/** Pauses for approvals and client results; a timeout resolves what is left as rejections the model can read. */
export async function awaitDecisions(ctx: RunContext): Promise<void> {
  const { state } = ctx;
  if (!unsettled(ctx)) return;
  const timeoutMs = state.config.limits.approvalTimeoutMs;
  const phase = ctx.published.values.phase;
  state.status = state.approvals.some((a) => a.state === 'pending') ? 'awaiting_approval' : 'awaiting_client_tools';
  const approvals = state.approvals.filter((a) => a.state === 'pending').map((a) => a.tool);
  const clientTools = state.clientTools.filter((c) => c.result === undefined).map((c) => c.tool);
  const summary = decisionWaitSummary(approvals, clientTools);
  updateCurrentDetails(ctx, { doing: summary });
  publishSearchAttributes(ctx, state.status);
  await waitsChanged(ctx);
  const wait = { approvals: approvals.length > 0, tools: [...approvals, ...clientTools] };
  const ended = await aroundWait(ctx, wait, async () => {
    const decided = await condition(
      () => !unsettled(ctx) || state.stopRequested !== undefined || state.steering.length > 0,
      timeoutMs,
      { summary },
    );
    if (!decided) return 'timed_out';
    return state.stopRequested ? 'stopped' : unsettled(ctx) ? 'steered' : 'decided';
  });
  const settled = ended !== 'timed_out';
  state.status = 'running';
  updateCurrentDetails(ctx, { doing: 'running tools' });
  publishSearchAttributes(ctx, phase ?? 'running');
  if (settled) return waitsChanged(ctx);
  for (const a of expireApprovals(state.approvals, timeoutMs)) emit(ctx, approvalDecided(a, 'timeout'));
  for (const c of state.clientTools.filter((r) => r.result === undefined)) {
    c.result = { content: `No result from the client within ${formatDuration(timeoutMs)}.`, isError: true };
    emit(ctx, { type: 'client_tool_result', toolCallId: c.toolCallId, tool: c.tool, isError: true, timedOut: true });
  }
  await waitsChanged(ctx);
}

/** Turns decisions and client results into results, leaving only calls that must execute. */
export function settle(ctx: RunContext, planned: PlannedCall[]): void {
  for (const p of planned) {
    if (p.result || !p.mode || p.mode === 'server' || p.mode === 'agent' || p.mode === 'workflow') continue;
    if (p.mode === 'client') {
      const req = ctx.state.clientTools.find((c) => c.toolCallId === p.call.id);
      if (req?.result) p.result = { text: req.result.content, isError: req.result.isError };
      continue;
    }
    const approval = ctx.state.approvals.find((a) => a.toolCallId === p.call.id);
    if (approval?.state === 'rejected') {
      const why =
        approval.decidedBy === 'timeout'
          ? `Not approved: ${approval.reason}.`
          : `Rejected by the ${approval.decidedBy ?? 'user'}${approval.reason ? `: ${approval.reason}` : '.'}`;
      p.result = { text: `${why} The tool was not run.`, isError: true };
    }
  }
}

/** Whether a call without a result may run now: a server call, or one whose approval was given. */
export function runnable(ctx: RunContext, p: PlannedCall): boolean {
  if (p.result || !p.tool) return false;
  if (p.mode === 'server' || p.mode === 'agent' || p.mode === 'workflow') return true;
  return p.mode === 'approval' && ctx.state.approvals.some((a) => a.toolCallId === p.call.id && a.state === 'approved');
}

/**
 * How a planned call groups: decided (joins any group), alone (side effects), a mode with a cap of
 * its own (sub-agents), or a server tool.
 */
function grouping(p: PlannedCall, caps: ModeCaps): string {
  if (p.result) return 'decided';
  if (p.tool?.sideEffects === true) return 'alone';
  return p.tool && caps[p.tool.mode] !== undefined ? p.tool.mode : 'tool';
}

/** How many calls of a tool mode may run together, for the modes a feature caps (`RunFeature.together`). */
export type ModeCaps = Partial<Record<ToolMode, number>>;

/**
 * Consecutive calls that may run together: side-effecting tools run alone, calls of a capped mode
 * run together (at most its cap of them), other tools together (at most {@link DEFAULT_TOOL_PARALLELISM}).
 */
export function groups(planned: PlannedCall[], caps: ModeCaps): PlannedCall[][] {
  const out: PlannedCall[][] = [];
  const capOf = (g: string) => caps[g as ToolMode] ?? DEFAULT_TOOL_PARALLELISM;
  for (const p of planned) {
    const last = out[out.length - 1];
    const own = grouping(p, caps);
    const others = new Set(last?.map((q) => grouping(q, caps)).filter((k) => k !== 'decided'));
    const [other] = others;
    const fits =
      last !== undefined &&
      !others.has('alone') &&
      own !== 'alone' &&
      (own === 'decided' || others.size === 0 || others.has(own)) &&
      last.length < capOf(own === 'decided' ? (other ?? 'tool') : own);
    if (fits) last.push(p);
    else out.push([p]);
  }
  return out;
}

/**
 * The quick tools whose calls this turn's model call may run itself (`policy/quick-tools.ts`), each
 * call as the approval gate decides it. None when the kind handles tool calls itself, or when a
 * feature looks at the answer's calls first (`RunFeature.inlines`).
 */
export function inlineToolCalls(ctx: RunContext, handlesToolsItself: boolean): InlineToolCalls | undefined {
  if (!mayInline(ctx, handlesToolsItself)) return undefined;
  const { state } = ctx;
  return quickToolCalls(state.tools, state.config, state.selectionHash, resultFit(ctx));
}

/** Whether this turn's model call may run quick tool calls itself (see {@link inlineToolCalls}). */
export const mayInline = (ctx: RunContext, handlesToolsItself: boolean): boolean =>
  !handlesToolsItself && RUN_FEATURES.every((f) => f.inlines?.(ctx) ?? true);

/** How long a tool result may be in the conversation of the run's current model (`ResultFit`). */
export const resultFit = ({ state }: RunContext): ResultFit =>
  resultFitFor(modelWindow(state.config.context.windowTokens, state.models, state.resolver.current), state.tools);

/** The run's tool selection as a tool call names it: by its hash in the store, written when the tools were pinned. */
export const selectionRef = ({ state }: RunContext): { selectionHash?: string } =>
  state.selectionHash ? { selectionHash: state.selectionHash } : {};
