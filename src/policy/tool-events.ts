/**
 * The events a tool call records: `tool_start` as it begins, `tool_execution` once it ran (or once
 * the workflow answered it without a tool activity of its own). The
 * workflow records them; a model call that runs quick calls itself publishes the same ones to the
 * run's token stream while they run (contracts/token-stream.ts).
 */
import type { RunToolOutput } from '../contracts/agent-activities';
import type { QuickToolEvent } from '../contracts/token-stream';
import { argsPreview } from './previews';

type Call = { id: string; name: string };

/** A call begins to run with `args`. */
export const toolStarted = (
  call: Call,
  args: Record<string, unknown>,
): Extract<QuickToolEvent, { type: 'tool_start' }> => ({
  type: 'tool_start',
  toolCallId: call.id,
  tool: call.name,
  args: argsPreview(args),
});

/** A call ran, with its stored result. */
export function toolRan(call: Call, out: RunToolOutput): Extract<QuickToolEvent, { type: 'tool_execution' }> {
  const hash = out.meta?.hash ?? out.hash;
  return {
    type: 'tool_execution',
    toolCallId: call.id,
    tool: call.name,
    durationMs: out.durationMs,
    isError: out.isError,
    ...(out.preview !== undefined ? { preview: out.preview } : {}),
    ...(hash ? { resultHash: hash } : {}),
  };
}

/**
 * A call answered without a tool activity of its own: a `preview` of the result the workflow
 * wrote, or why the call was `skipped`.
 */
export const toolAnswered = (
  call: Call,
  isError: boolean,
  how: { preview: string } | { skipped: string },
  durationMs = 0,
): Extract<QuickToolEvent, { type: 'tool_execution' }> => ({
  type: 'tool_execution',
  toolCallId: call.id,
  tool: call.name,
  durationMs,
  isError,
  ...how,
});
