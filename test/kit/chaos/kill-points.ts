/**
 * When to kill the worker for each kill point, found by watching the runs from outside: the fake
 * provider's requests, the effects service's calls and the runs' pending approvals. Each watcher
 * waits for its moment, then for a seeded delay that puts the kill inside it.
 */
import type { Invocation } from './effects-service';
import { EVENT_DELAY_MS, FIRST_BYTE_DELAY_MS, type ModelCall } from './model-script';
import type { KillPoint, Prng, RunSpec } from './plan';

/** How long the effects service holds each answer (a tool call in flight). */
export const TOOL_HOLD_MS = 1_200;

/** What the watchers see. */
export interface RunEvents {
  onModelCall(listener: (call: ModelCall) => void): void;
  onToolCall(listener: (invocation: Invocation) => void): void;
  onToolAnswer(listener: (invocation: Invocation) => void): void;
  /** Runs with a tool call waiting for approval right now. */
  waitingForApproval(): Promise<string[]>;
  running(tag: string): boolean;
  spec(tag: string): RunSpec;
}

/** The moment chosen for a kill and the run it was chosen by. */
export interface KillMoment {
  point: KillPoint;
  target: string;
}

const stepOf = (op: string): number => Number(/\/step-(\d+)$/.exec(op)?.[1] ?? NaN);

/**
 * Resolves at the moment to kill for `point`; later events are ignored once a moment is found.
 * Rejects after `timeoutMs` when the point never came up.
 */
export function nextKillMoment(point: KillPoint, events: RunEvents, rng: Prng, timeoutMs: number): Promise<KillMoment> {
  return new Promise((resolve, reject) => {
    let armed = true;
    const fire = (target: string, delayMs: number): void => {
      if (!armed) return;
      armed = false;
      clearTimeout(deadline);
      setTimeout(() => resolve({ point, target }), Math.max(0, delayMs));
    };
    const deadline = setTimeout(() => {
      armed = false;
      reject(new Error(`the kill point ${point} did not come up within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const live = (tag: string): boolean => armed && events.running(tag);

    switch (point) {
      case 'model_call_streaming':
      case 'model_call_plain':
        events.onModelCall((call) => {
          if (!live(call.tag) || events.spec(call.tag).stream !== (point === 'model_call_streaming')) return;
          // Streaming runs are killed while tokens flow; plain ones anywhere from sending to the first events.
          const from = point === 'model_call_streaming' ? FIRST_BYTE_DELAY_MS + EVENT_DELAY_MS : 50;
          fire(call.tag, rng.int(from, FIRST_BYTE_DELAY_MS + 3 * EVENT_DELAY_MS));
        });
        return;
      case 'tool_call':
        events.onToolCall((invocation) => {
          const tag = invocation.op.split('/')[0];
          if (live(tag)) fire(tag, rng.int(50, TOOL_HOLD_MS - 200));
        });
        return;
      case 'workflow_task':
        // The tool's answer completes its activity; the workflow task that follows runs within milliseconds.
        events.onToolAnswer((invocation) => {
          const tag = invocation.op.split('/')[0];
          if (live(tag)) fire(tag, rng.int(0, 60));
        });
        return;
      case 'continue_as_new':
        // The answer to a turn that reaches the run's threshold: the run continues as new right after it.
        events.onToolAnswer((invocation) => {
          const tag = invocation.op.split('/')[0];
          const every = live(tag) ? events.spec(tag).continueAsNewAfterTurns : undefined;
          if (every !== undefined && stepOf(invocation.op) % every === 0) fire(tag, rng.int(0, 400));
        });
        return;
      case 'child_run':
        // A sub-agent's model call: the worker dies while a child run of a delegating run works.
        events.onModelCall((call) => {
          if (call.child && live(call.tag)) fire(call.tag, rng.int(50, FIRST_BYTE_DELAY_MS + 3 * EVENT_DELAY_MS));
        });
        return;
      case 'approval_wait': {
        const poll = async (): Promise<void> => {
          while (armed) {
            const waiting = (await events.waitingForApproval().catch(() => [])).filter(live);
            if (waiting.length > 0) return fire(waiting[0], rng.int(0, 1_000));
            await new Promise((r) => setTimeout(r, 300));
          }
        };
        void poll();
        return;
      }
    }
  });
}
