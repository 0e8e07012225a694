/**
 * What the fake model answers in the chaos suite, decided from each request alone (so a retried
 * call after a kill gets the same answer): a ReAct run records its steps one turn at a time and
 * then reports; a pev run plans one todo per step, the executor records each todo's step, and
 * the verifier confirms. Every answer is held a little before and while it streams, so a kill
 * can land inside a model call.
 */
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

/** One model request the fake answered. */
export interface ModelCall {
  tag: string;
  at: number;
  /** When the response headers go out. */
  headersAt: number;
}

const recorded = (text: string, prefix: string): Set<string> =>
  new Set([...text.matchAll(new RegExp(`step recorded: ${prefix}`, 'g'))].map((m) => m[1]));

function reactStep(run: RunSpec, messages: string): FakeStep {
  const done = recorded(messages, `${run.tag}/step-(\\d+)`).size;
  if (done >= run.steps) return reply.text(expectedFinalText(run));
  return reply.toolCalls([{ name: 'record_step', arguments: { op: `${run.tag}/step-${done + 1}` } }]);
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
    onCall({ tag: run.tag, at, headersAt: at + FIRST_BYTE_DELAY_MS });
    const step = run.kind === 'react' ? reactStep(run, messages) : pevStep(run, request, messages);
    return step.kind === 'reply' ? { ...step, delayMs: FIRST_BYTE_DELAY_MS, eventDelayMs: EVENT_DELAY_MS } : step;
  };
}
