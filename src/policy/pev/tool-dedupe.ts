/**
 * Tool-call dedupe: before a tool runs, an identical earlier call (same tool, canonically equal
 * arguments) that succeeded is answered from its recorded result instead of running again. Only
 * tools without side effects that do not opt out (`dedupe: false`) are reused, and reuse never
 * crosses a call that may have changed something (a side-effecting call, earlier in the same answer
 * or in an earlier one), a new cycle or a follow-up: those start an empty ledger. The ledger is plain
 * JSON in workflow state, so it survives continue-as-new.
 */
import { canonicalJson } from '../../common/canonical-json';
import type { PinnedTool } from '../../contracts/agent-run';
import type { LedgerEntry, ToolLedger } from '../../contracts/pev-progress';

type Call = { id: string; name: string; arguments: Record<string, unknown> };

/** The identity of a call for dedupe: tool name plus canonical arguments. */
export const toolCallKey = (name: string, args: Record<string, unknown>): string => `${name} ${canonicalJson(args)}`;

const pinned = (tools: readonly PinnedTool[], name: string): PinnedTool | undefined =>
  tools.find((tool) => tool.name === name);

/** Whether a tool's results may answer identical later calls. */
export const reusableTool = (tool: PinnedTool | undefined): boolean =>
  tool !== undefined && !tool.sideEffects && tool.dedupe !== false;

/** Whether a call may have changed something: a side-effecting tool, or one the run does not know. */
const mayChange = (tools: readonly PinnedTool[], call: Pick<Call, 'name'>): boolean =>
  pinned(tools, call.name)?.sideEffects !== false;

/**
 * The ledger after a batch of calls ran: empty when one of them may have changed something,
 * otherwise with each reusable successful result added (the first result of a key stays).
 */
export function ledgerAfterCalls(
  ledger: ToolLedger,
  tools: readonly PinnedTool[],
  ran: readonly { call: Call; resultHash: string; isError: boolean }[],
): ToolLedger {
  if (ran.some(({ call }) => mayChange(tools, call))) return {};
  let next = ledger;
  for (const { call, resultHash, isError } of ran) {
    const key = toolCallKey(call.name, call.arguments);
    if (isError || next[key] || !reusableTool(pinned(tools, call.name))) continue;
    next = { ...next, [key]: { toolName: call.name, toolCallId: call.id, resultHash } };
  }
  return next;
}

/** The earlier result an identical call may reuse, if any. */
export function findReusable(
  ledger: ToolLedger,
  tools: readonly PinnedTool[],
  call: { name: string; arguments: Record<string, unknown> },
): LedgerEntry | undefined {
  return reusableTool(pinned(tools, call.name)) ? ledger[toolCallKey(call.name, call.arguments)] : undefined;
}

/**
 * The earlier result each call of one answer may reuse, in order. The calls run in the order the
 * model wrote them, so a call after one that may change something (a write before a read of the
 * same file) reuses nothing; malformed calls never run and change nothing.
 */
export function reusableInAnswer(
  ledger: ToolLedger,
  tools: readonly PinnedTool[],
  calls: readonly (Omit<Call, 'id'> & { malformed?: string })[],
): (LedgerEntry | undefined)[] {
  let changed = false;
  return calls.map((call) => {
    if (call.malformed) return undefined;
    const earlier = changed ? undefined : findReusable(ledger, tools, call);
    if (!earlier && mayChange(tools, call)) changed = true;
    return earlier;
  });
}

/** The note put before a reused result, so the model (and the log) sees that the tool did not run again. */
export function reuseNote(entry: LedgerEntry): string {
  return `[Identical call already made as ${entry.toolCallId}; its result is reused and the tool was not run again.]`;
}
