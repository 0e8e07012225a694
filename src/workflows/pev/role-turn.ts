/**
 * One model turn of one role: the agent turn (`agentTurn`) with the role's hooks: its model as a
 * resolver of its own (with its own failover position), its prompt by hash, structured output and
 * tool choice, the todo recitation, and the reuse of identical tool calls around the tool phase.
 */
import { AGENT_FAILURE } from '../../contracts/failure-types';
import type { DistributiveOmit } from '../../common/type-helpers';
import { ApplicationFailure } from '@temporalio/workflow';
import { initialResolverState } from '../../policy/resolver';
import type { ToolCallRequest } from '../../contracts/agent-run';
import { ledgerAfterCalls, reusableInAnswer, reuseNote } from '../../policy/pev/tool-dedupe';
import { todoRecitation } from '../../policy/pev/prompt-template';
import { roleStep } from '../../policy/run-summaries';
import { type PevActivities } from '../../contracts/pev-activities';
import { type PevRoleDefinition } from '../../policy/pev/roles';
import { type PevState } from '../../contracts/pev-run';
import { type PevTraceEntry } from '../../contracts/pev-progress';
import { agentTurn, emit, type ModelResolver, type RunContext, type TurnResult } from '../agent';
import { toolAnswered } from '../../policy/tool-events';

export interface PevContext {
  agent: RunContext;
  pev: PevState;
  io: PevActivities;
}

/** Trace entries kept in state; the oldest are dropped past this. */
const MAX_TRACE_ENTRIES = 300;

export function trace(pctx: PevContext, entry: DistributiveOmit<PevTraceEntry, 'cycle'>): void {
  const { progress } = pctx.pev;
  progress.trace.push({ ...entry, cycle: progress.cycle } as PevTraceEntry);
  if (progress.trace.length > MAX_TRACE_ENTRIES) progress.trace.splice(0, progress.trace.length - MAX_TRACE_ENTRIES);
}

/**
 * The resolver of a role on its own model: the run's policy with the role's model as primary, and
 * the role's own resolver state, kept in the pev state across turns and continue-as-new.
 */
function roleResolver(pctx: PevContext, role: string): ModelResolver | undefined {
  const model = pctx.pev.options.models[role];
  if (!model) return undefined;
  const policy = { ...pctx.agent.state.config.model, primary: model };
  const state = (pctx.pev.roleResolvers[role] ??= initialResolverState(policy));
  return { policy, state };
}

/** Answers calls identical to an earlier successful one from the stored result; returns the calls still to run. */
async function reuseIdenticalCalls(pctx: PevContext, calls: readonly ToolCallRequest[]): Promise<ToolCallRequest[]> {
  const { state } = pctx.agent;
  const rest: ToolCallRequest[] = [];
  const reusable = reusableInAnswer(pctx.pev.ledger, state.tools, calls);
  for (const [i, call] of calls.entries()) {
    const earlier = reusable[i];
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
    emit(pctx.agent, toolAnswered(call, false, { skipped: `reused the result of ${earlier.toolCallId}` }));
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

/** Records the successful results of calls that ran for later reuse, or ends all reuse after a side effect. */
function recordResults(pctx: PevContext, calls: readonly ToolCallRequest[]): void {
  const { state } = pctx.agent;
  const ran = calls.flatMap((call) => {
    if (call.malformed) return [];
    const meta = state.messages.find((m) => m.kind === 'tool_result' && m.toolCallId === call.id);
    if (!meta) return [];
    // A result of arguments the approver edited does not belong to the arguments the model wrote.
    const edited = state.approvals.some((a) => a.toolCallId === call.id && a.editedArgs !== undefined);
    return [{ call, resultHash: meta.hash, isError: meta.isError === true || edited }];
  });
  pctx.pev.ledger = ledgerAfterCalls(pctx.pev.ledger, state.tools, ran);
}

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

/**
 * One turn of `role` on the shared conversation: the agent turn with the role's hooks. The search
 * attributes show the phase at the turn's start and after its tools. `planned`: calls the turn
 * makes without asking the model (`TurnHooks.planned`).
 */
export function roleTurn(
  pctx: PevContext,
  role: PevRoleDefinition,
  planned?: () => ToolCallRequest[] | undefined,
): Promise<TurnResult> {
  const progress = () => pctx.pev.progress;
  return agentTurn(pctx.agent, {
    role: role.name,
    resolver: roleResolver(pctx, role.name),
    step: () => {
      const { round, cycle, currentTodoId } = progress();
      return roleStep(role.name, { round, cycle, ...(role.usesTools ? { todoId: currentTodoId } : {}) });
    },
    // The role's prompt replaces the run's; both travel by reference, not inline.
    call: () => ({
      systemPrompt: undefined,
      promptHash: promptHashOf(pctx, role.name),
      ...(role.usesTools ? {} : { settings: { toolChoice: 'none' as const } }),
      recitation: role.usesTools ? todoRecitation(progress().todos, progress().currentTodoId) : undefined,
    }),
    phaseAt: (point) => (point === 'tools' ? undefined : progress().phase),
    refuseTools: role.usesTools
      ? undefined
      : `Not run: the ${role.name} does not call tools. Answer with the ${role.component} JSON object.`,
    beforeTools: (calls) => reuseIdenticalCalls(pctx, calls),
    afterTools: (ran) => recordResults(pctx, ran),
    ...(planned ? { planned } : {}),
  });
}
