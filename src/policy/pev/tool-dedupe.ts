/**
 * Tool-call dedupe: before a tool runs, an identical earlier call (same tool, canonically equal
 * arguments) that succeeded is answered from its recorded result instead of running again. The
 * ledger is plain JSON in workflow state, so it survives continue-as-new.
 */
import { canonicalJson } from '../../common/canonical-json';
import type { LedgerEntry, ToolLedger } from '../../contracts/pev-progress';

/** The identity of a call for dedupe: tool name plus canonical arguments. */
export const toolCallKey = (name: string, args: Record<string, unknown>): string => `${name} ${canonicalJson(args)}`;

export function recordToolResult(
  ledger: ToolLedger,
  call: { id: string; name: string; arguments: Record<string, unknown> },
  result: { resultHash: string; isError: boolean },
): ToolLedger {
  const key = toolCallKey(call.name, call.arguments);
  if (result.isError || ledger[key]) return ledger;
  return { ...ledger, [key]: { toolName: call.name, toolCallId: call.id, resultHash: result.resultHash } };
}

export function findReusable(
  ledger: ToolLedger,
  call: { name: string; arguments: Record<string, unknown> },
): LedgerEntry | undefined {
  return ledger[toolCallKey(call.name, call.arguments)];
}

/** The note put before a reused result, so the model (and the log) sees that the tool did not run again. */
export function reuseNote(entry: LedgerEntry): string {
  return `[Identical call already made as ${entry.toolCallId}; its result is reused and the tool was not run again.]`;
}
