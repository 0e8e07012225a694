/**
 * One model turn of one role, built from the agent loop's steps: limits and stop first, steering
 * into the conversation, the role's model (with its own failover chain), system prompt and
 * structured output, then the tool phase with tool-call dedupe in front of it.
 */
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { kindOf } from '../../policy/legacy-values';
import type { DistributiveOmit } from '../../common/type-helpers';
import { ApplicationFailure } from '@temporalio/workflow';
import { limitReached } from '../../policy/limits';
import { initialResolverState } from '../../policy/resolver';
import type { ToolCallRequest } from '../../contracts/agent-run';
import { modelLabel } from '../../contracts/model-ref';
import { findReusable, recordToolResult, reuseNote } from '../../policy/pev/tool-dedupe';
import { todoRecitation } from '../../policy/pev/prompt-template';
import { type PevActivities } from '../../contracts/pev-activities';
import { type PevRoleDefinition } from '../../policy/pev/roles';
import { type PevState } from '../../contracts/pev-run';
import { type PevTraceEntry } from '../../contracts/pev-progress';
import {
  callModelWithFailover,
  closeUnanswered,
  compactIfNeeded,
  emit,
  fail,
  finish,
  publishSearchAttributes,
  recordAnswer,
  resolveModel,
  runToolCalls,
  turnEndHook,
  injectSteering,
  type LoopOutcome,
  type RunContext,
} from '../agent';

export interface PevContext {
  agent: RunContext;
  pev: PevState;
  io: PevActivities;
}

export type TurnResult =
  | { kind: 'answer'; text: string }
  /** The role called tools; their results are in the conversation. */
  | { kind: 'tools' }
  /** A role without tools called some; they got "not run" results. */
  | { kind: 'tools_refused'; tools: string[] }
  /** The run ended (stop, limit, error, hook). */
  | { kind: 'end'; outcome: LoopOutcome };

/** Trace entries kept in state; the oldest are dropped past this. */
export const MAX_TRACE_ENTRIES = 300;

export function trace(pctx: PevContext, entry: DistributiveOmit<PevTraceEntry, 'cycle'>): void {
  const { progress } = pctx.pev;
  progress.trace.push({ ...entry, cycle: progress.cycle } as PevTraceEntry);
  if (progress.trace.length > MAX_TRACE_ENTRIES) progress.trace.splice(0, progress.trace.length - MAX_TRACE_ENTRIES);
}

/** Runs `fn` with the role's own model and failover position in place of the run's. */
async function withRoleModel<T>(pctx: PevContext, role: string, fn: () => Promise<T>): Promise<T> {
  const { state } = pctx.agent;
  const model = pctx.pev.options.models[role];
  if (!model) return fn();
  const saved = { policy: state.config.resolver, resolver: state.resolver };
  const policy = { ...saved.policy, primary: model };
  state.config.resolver = policy;
  state.resolver = pctx.pev.roleResolvers[role] ?? initialResolverState(policy);
  try {
    return await fn();
  } finally {
    pctx.pev.roleResolvers[role] = state.resolver;
    state.config.resolver = saved.policy;
    state.resolver = saved.resolver;
  }
}

/** Answers calls identical to an earlier successful one from the stored result; returns the calls still to run. */
async function reuseIdenticalCalls(pctx: PevContext, calls: readonly ToolCallRequest[]): Promise<ToolCallRequest[]> {
  const { state } = pctx.agent;
  const rest: ToolCallRequest[] = [];
  for (const call of calls) {
    const earlier = call.malformed ? undefined : findReusable(pctx.pev.ledger, call);
    if (!earlier) {
      rest.push(call);
      continue;
    }
    const seq = state.nextSeq;
    state.nextSeq += 1;
    const meta = await pctx.io.reuseToolResult({
      conversationId: state.conversationId,
      seq,
      toolCallId: call.id,
      fromHash: earlier.resultHash,
      note: reuseNote(earlier),
    });
    state.messages.push(meta);
    emit(pctx.agent, {
      type: 'tool_execution',
      toolCallId: call.id,
      tool: call.name,
      durationMs: 0,
      isError: false,
      skipped: `reused the result of ${earlier.toolCallId}`,
    });
    trace(pctx, {
      type: 'tool_reused',
      todoId: pctx.pev.progress.currentTodoId,
      toolName: call.name,
      toolCallId: call.id,
      reusedFrom: earlier.toolCallId,
    });
  }
  return rest;
}

/** Records the successful results of calls that ran, for later reuse. */
function recordResults(pctx: PevContext, calls: readonly ToolCallRequest[]): void {
  const { state } = pctx.agent;
  for (const call of calls) {
    if (call.malformed) continue;
    // A result of arguments the approver edited does not belong to the arguments the model wrote.
    if (state.approvals.some((a) => a.toolCallId === call.id && a.editedArgs !== undefined)) continue;
    const meta = state.messages.find((m) => kindOf(m) === 'tool_result' && m.toolCallId === call.id);
    if (meta && !meta.isError)
      pctx.pev.ledger = recordToolResult(pctx.pev.ledger, call, { resultHash: meta.hash, isError: false });
  }
}

const end = (outcome: LoopOutcome): TurnResult => ({ kind: 'end', outcome });

/** The stored system prompt (and response format) of a role. */
function promptHashOf(pctx: PevContext, role: string): string {
  const prepared = pctx.pev.prompts?.roles[role];
  // A plain Error here would fail the workflow task and retry it forever; fail the run instead.
  if (!prepared)
    throw ApplicationFailure.nonRetryable(
      `Role "${role}" has no prepared prompt; prepared roles: ` +
        `${Object.keys(pctx.pev.prompts?.roles ?? {}).join(', ') || 'none'}.`,
      AGENT_FAILURE.pevRole,
    );
  return prepared.promptHash;
}

/** Read through a call: handlers change it while the turn awaits, which narrowing cannot see. */
const stopRequest = (ctx: RunContext) => ctx.state.stopRequested;

/**
 * Ends the run when a stop was requested or a run-wide limit is reached. Phases call it before
 * they write the next prompt, so no round is counted (and no prompt left unanswered) for a turn
 * that will not happen.
 */
export async function endIfStoppedOrLimited(ctx: RunContext): Promise<LoopOutcome | undefined> {
  const stop = stopRequest(ctx);
  if (stop) return finish(ctx, stop.reason);
  const limit = limitReached(ctx.state.config.limits, ctx.state);
  return limit ? finish(ctx, limit) : undefined;
}

/** One turn of `role` on the shared conversation. */
export async function roleTurn(pctx: PevContext, role: PevRoleDefinition): Promise<TurnResult> {
  const ctx = pctx.agent;
  const { state } = ctx;
  const { progress } = pctx.pev;
  const ended = await endIfStoppedOrLimited(ctx);
  if (ended) return end(ended);
  await injectSteering(ctx);

  state.turn += 1;
  state.turnsThisRun += 1;
  const step = await withRoleModel(pctx, role.name, async () => {
    resolveModel(ctx);
    emit(ctx, { type: 'turn_start', model: modelLabel(state.resolver.current) });
    publishSearchAttributes(ctx, progress.phase);
    await compactIfNeeded(ctx);
    return callModelWithFailover(ctx, {
      // The role's prompt replaces the run's; both travel by reference, not inline.
      systemPrompt: undefined,
      promptHash: promptHashOf(pctx, role.name),
      toolChoice: role.usesTools ? undefined : 'none',
      recitation: role.usesTools ? todoRecitation(progress.todos, progress.currentTodoId) : undefined,
    });
  });
  if (!step.ok)
    return end(
      await fail(ctx, { message: step.failure.message, type: step.failure.type, retryable: step.failure.retryable }),
    );
  const out = step.output;
  await recordAnswer(ctx, out);

  const hook = await turnEndHook(ctx, out);
  if (hook !== 'go') {
    await closeUnanswered(ctx, out);
    if (hook === 'stop') return end(await finish(ctx, 'hook_stopped'));
    return end(await fail(ctx, state.error ?? { message: 'on-turn-end hook failed', retryable: false }));
  }
  if (out.toolCalls.length === 0) {
    if (out.stopReason === 'error')
      return end(
        await fail(ctx, {
          message: out.errorMessage ?? 'the model returned an error',
          type: AGENT_FAILURE.model,
          retryable: false,
        }),
      );
    return { kind: 'answer', text: out.text };
  }
  if (!role.usesTools) {
    await closeUnanswered(
      ctx,
      out,
      `Not run: the ${role.name} does not call tools. Answer with the ${role.component} JSON object.`,
    );
    return { kind: 'tools_refused', tools: out.toolCalls.map((c) => c.name) };
  }
  if (out.toolCalls.length > state.config.limits.maxToolCallsPerTurn) {
    await closeUnanswered(
      ctx,
      out,
      `Not run: the turn asked for ${out.toolCalls.length} tool calls; the limit is ` +
        `${state.config.limits.maxToolCallsPerTurn}.`,
    );
    return end(await finish(ctx, 'max_tool_calls'));
  }
  const toRun = await reuseIdenticalCalls(pctx, out.toolCalls);
  if (toRun.length > 0) {
    const outcome = await runToolCalls(ctx, toRun);
    publishSearchAttributes(ctx, progress.phase);
    recordResults(pctx, toRun);
    if (outcome === 'stopped') return end(await finish(ctx, stopRequest(ctx)?.reason ?? 'stopped'));
  }
  return { kind: 'tools' };
}
