/**
 * A third agent kind, written with hooks only: the model answers, critiques its answer in one
 * turn without tools, then writes the revised answer. The run scaffold brings everything else
 * (steering, approvals, stop and cancel, limits, failover, events, continue-as-new). The tests'
 * worker registers it (test/kit/test-workflows.ts); a worker of your own registers it the same way.
 * Its edge (reflect-agent-edge.ts) lets the client and the CLI start and show it.
 */
import {
  agentTurn,
  appendDrafts,
  endIfStoppedOrLimited,
  finish,
  runAgent,
  shouldContinueAsNew,
  startConversation,
  type AgentKind,
  type AgentResult,
  type AgentWorkflowInput,
  type LoopOutcome,
  type RunContext,
} from '../src/workflow';

/** The kind's own state: plain JSON, carried by continue-as-new. */
export interface ReflectState {
  stage: 'answer' | 'critique' | 'revise';
  draft?: string;
  critique?: string;
}

/** The kind's own start options (`reflect` in the start options and the input). */
export interface ReflectOptions {
  /** What the critique turn asks; default {@link CRITIQUE_PROMPT}. */
  critique?: string;
}

export interface ReflectInput extends AgentWorkflowInput {
  reflect?: ReflectOptions;
  reflectCarry?: ReflectState;
}

export interface ReflectResult extends AgentResult {
  reflect: ReflectState;
}

interface ReflectContext {
  run: RunContext;
  reflect: ReflectState;
  critiquePrompt: string;
}

export const CRITIQUE_PROMPT = 'Critique your answer above: list what is wrong or missing. Do not rewrite it yet.';
export const REVISE_PROMPT = 'Now write the final answer, fixing everything your critique found.';

async function answerCritiqueRevise({ run, reflect, critiquePrompt }: ReflectContext): Promise<LoopOutcome> {
  await startConversation(run);
  for (;;) {
    const critiquing = reflect.stage === 'critique';
    const turn = await agentTurn(run, {
      continueAsNew: () => shouldContinueAsNew(run),
      phaseAt: (point) => (point === 'model' ? reflect.stage : undefined),
      // The critique is words about the answer: the provider is told not to call tools, and calls are refused.
      ...(critiquing && {
        call: () => ({ settings: { toolChoice: 'none' as const } }),
        refuseTools: 'Not run: write the critique without tools.',
      }),
    });
    if (turn.type === 'end') return turn.outcome;
    if (turn.type !== 'answer') continue;
    if (reflect.stage === 'revise') return finish(run, 'completed');
    if (critiquing) reflect.critique = turn.text;
    else reflect.draft = turn.text;
    // No prompt for a turn that will not happen.
    const ended = await endIfStoppedOrLimited(run);
    if (ended) return ended;
    reflect.stage = critiquing ? 'revise' : 'critique';
    await appendDrafts(run, [{ kind: 'user', text: critiquing ? REVISE_PROMPT : critiquePrompt }]);
  }
}

export const reflectKind: AgentKind<ReflectInput, ReflectContext, ReflectResult> = {
  context: (input, run) => ({
    run,
    reflect: input.reflectCarry ?? { stage: 'answer' },
    critiquePrompt: input.reflect?.critique ?? CRITIQUE_PROMPT,
  }),
  view: (c) => ({ reflect: c.reflect }),
  startPhase: (c) => c.reflect.stage,
  run: answerCritiqueRevise,
  carry: (c, input) => ({ reflect: input.reflect, reflectCarry: c.reflect }),
  result: (c, base) => ({ ...base, reflect: c.reflect }),
};

/** Answer, self-critique, revised answer. */
export async function reflectAgentWorkflow(input: ReflectInput): Promise<ReflectResult> {
  return runAgent(input, reflectKind);
}
