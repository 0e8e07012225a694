/**
 * Tool-call dedupe (seed 001): before a tool runs, an identical earlier call — same tool,
 * canonically equal arguments — that succeeded is answered from its recorded result instead of
 * running again. The ledger is plain JSON in workflow state, so it survives continue-as-new.
 */

/** JSON with object keys sorted at every level: `{b:1,a:2}` and `{a:2,b:1}` give the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The identity of a call for dedupe: tool name plus canonical arguments. */
export const toolCallKey = (name: string, args: Record<string, unknown>): string => `${name} ${canonicalJson(args)}`;

export interface LedgerEntry {
  toolName: string;
  /** The call that actually ran. */
  toolCallId: string;
  /** Content-store hash of the result body the model saw; a reuse copies it under the new call id. */
  resultHash: string;
}

/** Successful tool results by {@link toolCallKey}. Error results are never recorded, so a failed call may run again. */
export type ToolLedger = Record<string, LedgerEntry>;

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
