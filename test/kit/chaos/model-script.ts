/**
 * What the fake model answers in the chaos suite, decided from each request alone (so a retried
 * call after a kill gets the same answer): a ReAct run records its steps one turn at a time and
 * then reports (a delegating one asks its sub-agent, a child run, to record each step); a pev run
 * plans one todo per step, the executor records each todo's step, and the verifier confirms. Every answer is held a little before and while it streams, so a kill
 * can land inside a model call.
 */
import type { SubAgents } from '../../../src/contracts/sub-agents';
import { reply, type FakeStep, type RecordedRequest } from '../../../src/testing/fake-provider';
import { answer, roleOf } from '../../pev/pev-kit';
import { expectedFinalText, type RunSpec } from './plan';

/** Before the response headers. */
export const FIRST_BYTE_DELAY_MS = 400;
/** Between two SSE events. */
export const EVENT_DELAY_MS = 40;

/** The task a run starts with; its tag in brackets names the run in every later request. */
export const taskOf = (run: RunSpec): string =>
  `[run ${run.tag}] Record ${run.steps} steps with record_step, one call per step, then report.`;

/** The sub-agent a delegating run hands each step to; its prompt tells its requests apart. */
export const STEPPER: SubAgents = {
  stepper: {
    description: 'Records one step with record_step and reports it.',
    instructions: 'You are the stepper. Record the step you are given with record_step, then report it.',
    tools: ['record_step'],
  },
};

/** One model request the fake answered. */
export interface ModelCall {
  tag: string;
  /** Made by a child run (a delegating run's sub-agent). */
  child: boolean;
  at: number;
  /** When the response headers go out. */
  headersAt: number;
}

const recorded = (text: string, prefix: string): Set<string> =>
  new Set([...text.matchAll(new RegExp(`step recorded: ${prefix}`, 'g'))].map((m) => m[1]));

function reactStep(run: RunSpec, messages: string): FakeStep {
  const done = recorded(messages, `${run.tag}/step-(\\d+)`).size;
  if (done >= run.steps) return reply.text(expectedFinalText(run));
  const op = `${run.tag}/step-${done + 1}`;
  if (run.delegate)
    return reply.toolCalls([
      { name: 'stepper', arguments: { task: `[run ${run.tag}] Record ${op} with record_step.` } },
    ]);
  return reply.toolCalls([{ name: 'record_step', arguments: { op } }]);
}

/** The stepper child of a delegating run: records the step of its task, then reports it. */
function stepperStep(request: RecordedRequest, messages: string): FakeStep {
  const op = /Record (r\d+\/step-\d+) with record_step/.exec(messages)?.[1];
  if (!op) throw new Error(`no step in the stepper's request #${request.seq}`);
  if (messages.includes(`step recorded: ${op}`)) return reply.text(`step recorded: ${op}`);
  return reply.toolCalls([{ name: 'record_step', arguments: { op } }]);
}

function pevStep(run: RunSpec, request: RecordedRequest, messages: string): FakeStep {
  const role = roleOf(request);
  if (role === 'planner')
    return answer.plan(
      Array.from({ length: run.steps }, (_, i) => ({
        id: `task-${i + 1}`,
        description: `Record ${run.tag}/task-${i + 1} with record_step.`,
      })),
    );
  if (role === 'verifier') return answer.verified(expectedFinalText(run));
  if (role !== 'executor') throw new Error(`no role in the system prompt of request #${request.seq}`);
  const current = [...messages.matchAll(/urrent task: (task-\d+)/g)].at(-1)?.[1];
  if (!current) throw new Error(`no current task in executor request #${request.seq}`);
  const op = `${run.tag}/${current}`;
  if (messages.includes(`step recorded: ${op}`)) return answer.executed(`recorded ${op}`);
  return reply.toolCalls([{ name: 'record_step', arguments: { op } }]);
}

/**
 * The fake provider's responder for `runs`; `onCall` hears of each request as it arrives.
 * Throws (the fake answers 500, which the suite counts as a refused request) for a request of no run.
 */
export function chaosResponder(runs: readonly RunSpec[], onCall: (call: ModelCall) => void) {
  const byTag = new Map(runs.map((run) => [run.tag, run]));
  return (request: RecordedRequest): FakeStep => {
    const messages = JSON.stringify(request.body.messages ?? []);
    const tag = /\[run (r\d+)\]/.exec(messages)?.[1];
    const run = tag === undefined ? undefined : byTag.get(tag);
    if (!run) throw new Error(`request #${request.seq} names no run of the scenario`);
    const at = Date.now();
    const child = JSON.stringify(request.body.system ?? request.body.messages ?? '').includes('You are the stepper.');
    onCall({ tag: run.tag, child, at, headersAt: at + FIRST_BYTE_DELAY_MS });
    const step = child
      ? stepperStep(request, messages)
      : run.kind === 'react'
        ? reactStep(run, messages)
        : pevStep(run, request, messages);
    return step.kind === 'reply' ? { ...step, delayMs: FIRST_BYTE_DELAY_MS, eventDelayMs: EVENT_DELAY_MS } : step;
  };
}
