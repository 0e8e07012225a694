/**
 * The three phases over one shared conversation: the planner's rounds, the executor's rounds per
 * todo, the verifier's verdict. Each phase returns a loop outcome when the run ended inside it,
 * and otherwise moves `progress.phase` on. Phases start only from states a query can show and
 * continue-as-new can carry: a cycle's start, or between two todos.
 */
import { afterPlannerRound, afterVerifier, applyPlan } from '../../policy/pev/decisions';
import { correctiveReask, parseRoleAnswer } from '../../policy/pev/parse-answer';
import { plannerFallback, unfinishedFinalText, unverifiedFinalText } from '../../policy/pev/fallbacks';
import { plannerRole, verifierRole, type PevRoleDefinition } from '../../policy/pev/roles';
import { plannerContinue, plannerTask, verifierTask } from '../../policy/pev/prompt-template';
import type { PevEndReason, PevPhase, PlanningEndReason } from '../../contracts/pev-progress';
import type { PlannerResponse } from '../../policy/pev/answer-schemas';
import { appendDrafts, emit, endIfStoppedOrLimited, publishSearchAttributes, type LoopOutcome } from '../agent';
import { roleTurn, trace, type PevContext } from './role-turn';

export type Structured<T> =
  { type: 'valid'; value: T } | { type: 'invalid'; raw: string } | { type: 'end'; outcome: LoopOutcome };

export function setPhase(pctx: PevContext, phase: PevPhase): void {
  const { progress } = pctx.pev;
  const changed = progress.phase !== phase;
  progress.phase = phase;
  progress.round = 0;
  if (phase !== 'executing') progress.currentTodoId = undefined;
  mirrorPlan(pctx);
  publishSearchAttributes(pctx.agent, phase);
  // Executing is announced per todo, by startTodo.
  if (changed && phase !== 'executing') emit(pctx.agent, { type: 'phase', phase, cycle: progress.cycle });
}

/** Ends the rounds: the run's stop reason is `reason` (`PevState.endReason`), its final text `finalText`. */
export function endRounds(pctx: PevContext, reason: PevEndReason, finalText: string): void {
  pctx.pev.endReason = reason;
  pctx.agent.state.finalText = finalText;
  setPhase(pctx, 'done');
}

/** The todos as the agent's plan, so the `state` view shows them too. */
export function mirrorPlan(pctx: PevContext): void {
  const { todos } = pctx.pev.progress;
  pctx.agent.state.plan = todos.map((t) => ({
    id: t.id,
    title: `${t.description} (${t.status})`,
    done: t.status === 'completed',
  }));
}

/** Writes the prompt of `role`'s next turn. */
export const say = (pctx: PevContext, role: PevRoleDefinition, text: string) =>
  appendDrafts(pctx.agent, [{ kind: 'user', text, agentRole: role.name }]);

/**
 * Asks a tool-less role (planner, verifier, or a role added beside them) for its JSON answer: after an
 * invalid answer, one corrective re-ask; after a second, `invalid` and the caller applies the
 * role's fallback. The prompt for the role is already in the conversation.
 */
export async function askRole<T>(pctx: PevContext, role: PevRoleDefinition<T>): Promise<Structured<T>> {
  for (let attempt = 1; ; attempt++) {
    const turn = await roleTurn(pctx, role as PevRoleDefinition);
    if (turn.type === 'end') return turn;
    const raw = turn.type === 'answer' ? turn.text : '';
    const parsed =
      turn.type === 'answer'
        ? parseRoleAnswer(role, turn.text)
        : {
            ok: false as const,
            problems: [
              `the ${role.name} called tools ` +
                `(${turn.type === 'tools_refused' ? turn.tools.join(', ') : ''}); it never calls tools`,
            ],
          };
    if (parsed.ok) return { type: 'valid', value: parsed.value };
    if (attempt === 2) {
      trace(pctx, { type: 'fallback', role: role.name, problems: parsed.problems });
      return { type: 'invalid', raw };
    }
    trace(pctx, { type: 'reask', role: role.name, problems: parsed.problems });
    await say(pctx, role as PevRoleDefinition, correctiveReask(role as PevRoleDefinition, parsed.problems));
  }
}

function endPlanning(pctx: PevContext, plan: PlannerResponse, rounds: number, reason: PlanningEndReason): void {
  const { progress } = pctx.pev;
  progress.todos = applyPlan(progress.todos, plan.todos, progress.cycle);
  trace(pctx, { type: 'planning_ended', rounds, reason, todoIds: progress.todos.map((t) => t.id) });
  setPhase(pctx, pctx.pev.options.confirmPlan ? 'confirming' : 'executing');
}

/** Planner rounds of one cycle: `needsMorePlanning` asks for another, up to the planning-round limit. */
export async function planningPhase(pctx: PevContext): Promise<LoopOutcome | undefined> {
  const { pev } = pctx;
  const { progress, options } = pev;
  setPhase(pctx, 'planning');
  let lastValid: PlannerResponse | undefined;
  for (let round = 1; ; round++) {
    const ended = await endIfStoppedOrLimited(pctx.agent);
    if (ended) return ended;
    progress.round = round;
    await say(
      pctx,
      plannerRole,
      round === 1
        ? plannerTask({
            request: pev.request,
            cycle: progress.cycle,
            maxPlanningRounds: options.limits.maxPlanningRounds,
            todos: progress.todos,
            improvements: progress.improvements,
          })
        : plannerContinue(round, options.limits.maxPlanningRounds),
    );
    const answer = await askRole(pctx, plannerRole);
    if (answer.type === 'end') return answer.outcome;
    if (answer.type === 'invalid') {
      endPlanning(
        pctx,
        plannerFallback({ request: pev.request, improvements: progress.improvements, lastValid }),
        round,
        'fallback',
      );
      return undefined;
    }
    lastValid = answer.value;
    const decision = afterPlannerRound(answer.value, round, options.limits);
    if (decision.next === 'execute') {
      endPlanning(pctx, answer.value, round, decision.reason);
      return undefined;
    }
  }
}

/** One verifier round: a confirmed summary ends the rounds, improvements start the next cycle. */
export async function verifyingPhase(pctx: PevContext): Promise<LoopOutcome | undefined> {
  const { pev } = pctx;
  const { progress, options } = pev;
  setPhase(pctx, 'verifying');
  const ended = await endIfStoppedOrLimited(pctx.agent);
  if (ended) return ended;
  progress.round = 1;
  await say(
    pctx,
    verifierRole,
    verifierTask({
      request: pev.request,
      todos: progress.todos,
      cycle: progress.cycle,
      maxCycles: options.limits.maxCycles,
    }),
  );
  const answer = await askRole(pctx, verifierRole);
  if (answer.type === 'end') return answer.outcome;
  if (answer.type === 'invalid') {
    endRounds(pctx, 'unverified', unverifiedFinalText(answer.raw, progress.todos));
    return undefined;
  }
  const decision = afterVerifier(answer.value, progress.cycle, options.limits);
  trace(pctx, {
    type: 'verified',
    passed: decision.next === 'finish',
    improvements: decision.next === 'finish' ? [] : decision.improvements,
  });
  if (decision.next === 'finish') {
    endRounds(pctx, 'completed', decision.finalText);
  } else if (decision.next === 'replan') {
    progress.improvements = decision.improvements;
    progress.cycle += 1;
    // What the tools said in the last cycle may be what the verifier found wrong: read it again.
    pev.ledger = {};
    setPhase(pctx, 'planning');
  } else {
    endRounds(pctx, 'max_cycles', unfinishedFinalText(decision.improvements, progress.todos));
  }
  return undefined;
}
