/**
 * Served tool results (docs/evals.md): which result of an eval's table answers a tool call, keyed by
 * the tool, the canonical hash of its arguments and the call's ordinal, and what a call without
 * one gets. Pure: the served-tools feature calls it for each call and keeps the tally in state.
 */
import type { PendingApproval } from '../contracts/approval';
import type {
  DriftCall,
  EvalDecision,
  EvalSpec,
  EvalSteer,
  EvalTally,
  RunEval,
  ServedCall,
  ServedResult,
} from '../contracts/eval-spec';
import { absentOrAll, isPlainObject } from '../common/type-helpers';
import { argsHash } from './approval-rules';

/** Drift calls kept by name in the tally; the count stays exact. */
export const DRIFT_CALLS_KEPT = 50;

/** What answers one call: a served result, the tool itself (a live read), or nothing (drift). */
export type ServedAnswer =
  | { type: 'served'; result: { text: string; isError: boolean } }
  | { type: 'live' }
  | { type: 'drift'; result: { text: string; isError: true } };

export const emptyTally = (): RunEval => ({ served: 0, live: 0, drift: 0, driftCalls: [], ordinals: {} });

/** The tally as the result and the state view show it: without the ordinals. */
export const evalTally = ({ ordinals: _o, followUpsQueued: _q, steered: _s, ...tally }: RunEval): EvalTally => tally;

/** The hash a row answers: its own, its arguments', or none (any arguments). */
const rowHash = (row: ServedCall): string | undefined =>
  row.argsHash ?? (row.args === undefined ? undefined : argsHash(row.args));

/** The result a call gets as the model reads it: a thrown error reads as a failed tool does. */
function resultText(tool: string, result: ServedResult): { text: string; isError: boolean } {
  if ('throws' in result) return { text: `Tool "${tool}" failed: ${result.throws}`, isError: true };
  return { text: result.text, isError: result.isError === true };
}

/** The eval record a sub-agent inherits: the served results, not the parent's follow-ups or steering. */
export const childEval = ({ followUps: _followUps, steer: _steer, ...spec }: EvalSpec): EvalSpec => spec;

/** The record's steering (in turn order) due by turn `turn` and not queued yet: the first `steered` are. */
export const steeringDue = (spec: EvalSpec, steered: number, turn: number): EvalSteer[] =>
  (spec.steer ?? []).slice(steered).filter((s) => s.turn <= turn);

/**
 * The eval record of the child a call of sub-agent `agent` with `args` starts: the parent's, as a
 * child inherits it; or, when the record names recorded children, the recorded child's own (by the
 * agent, the arguments' hash and the call's ordinal, counted in `tally`), else an empty table.
 */
export function childEvalOf(spec: EvalSpec, tally: RunEval, agent: string, args: Record<string, unknown>): EvalSpec {
  const { children, served: _served, ...inherited } = childEval(spec);
  if (!children) return childEval(spec);
  const hash = argsHash(args);
  const key = `agent ${agent}:${hash}`;
  const ordinal = tally.ordinals[key] ?? 0;
  tally.ordinals[key] = ordinal + 1;
  const recorded = children.find((c) => c.agent === agent && c.argsHash === hash)?.runs[ordinal];
  return { ...inherited, served: recorded?.served ?? [], children: recorded?.children ?? [] };
}

/** A run's drift with its sub-agents'. */
export const totalDrift = (tally: EvalTally | undefined): number => (tally?.drift ?? 0) + (tally?.childDrift ?? 0);

/** Counts an ended child's tally in its parent's (`tally`, changed in place). */
export function countChild(tally: RunEval, child: { id: string; agent: string }, its: EvalTally): void {
  const drift = totalDrift(its);
  tally.childDrift = (tally.childDrift ?? 0) + drift;
  tally.children ??= [];
  if (tally.children.length < DRIFT_CALLS_KEPT) tally.children.push({ ...child, served: its.served, drift });
}

/** The text of a call that was not executed because the eval has no result for it. */
export const notExecutedText = (tool: string): string =>
  `Not executed: this run is an eval and has no served result for this call of "${tool}" with these ` +
  'arguments, so the tool did not run.';

/**
 * Answers one call of `tool` with `args` from the table and counts it in `tally` (changed in
 * place). `sideEffects`: the tool's own word; only a tool without them may run live, and only
 * when the spec allows live reads.
 */
export function serveCall(
  spec: EvalSpec,
  tally: RunEval,
  call: { tool: string; args: Record<string, unknown>; sideEffects: boolean; turn: number },
): ServedAnswer {
  const hash = argsHash(call.args);
  const rows = spec.served.filter((r) => r.tool === call.tool);
  const exact = rows.find((r) => rowHash(r) === hash);
  const any = rows.find((r) => rowHash(r) === undefined);
  for (const [row, key] of [
    [exact, `${call.tool}:${hash}`],
    [any, `${call.tool}:*`],
  ] as const) {
    if (!row) continue;
    const ordinal = tally.ordinals[key] ?? 0;
    const result = row.results[ordinal] ?? (row.repeat ? row.results[row.results.length - 1] : undefined);
    if (!result) continue;
    tally.ordinals[key] = ordinal + 1;
    tally.served++;
    return { type: 'served', result: resultText(call.tool, result) };
  }
  if (!call.sideEffects && spec.liveReads) {
    tally.live++;
    return { type: 'live' };
  }
  tally.drift++;
  const drifted: DriftCall = { tool: call.tool, argsHash: hash, turn: call.turn };
  if (tally.driftCalls.length < DRIFT_CALLS_KEPT) tally.driftCalls.push(drifted);
  return { type: 'drift', result: { text: notExecutedText(call.tool), isError: true } };
}

/** Why a call of a tool the eval names no decision for is rejected. */
export const NO_EVAL_DECISION = 'This eval case gives no approval for this tool.';

/**
 * Decides the pending approvals of a run whose eval record carries its decisions (changed in
 * place): a call of a tool the record names gets its decision, any other is rejected. Returns the
 * ones it decided; none when the record leaves the decisions to people.
 */
export function decideByEval(spec: EvalSpec | undefined, approvals: PendingApproval[]): PendingApproval[] {
  const { decisions } = spec ?? {};
  if (!decisions) return [];
  const pending = approvals.filter((a) => a.state === 'pending');
  for (const a of pending) {
    const given = decisions.find((d) => d.tool === a.tool);
    a.state = given?.decision === 'approve' ? 'approved' : 'rejected';
    a.decidedBy = 'eval';
    const reason = given ? given.reason : NO_EVAL_DECISION;
    if (reason !== undefined) a.reason = reason;
  }
  return pending;
}

function resultProblem(result: unknown): string | undefined {
  if (!isPlainObject(result)) return 'is not an object';
  if ('throws' in result) return typeof result.throws === 'string' ? undefined : 'throws must be a string';
  if (typeof result.text !== 'string') return 'needs text (or throws)';
  if (result.isError !== undefined && typeof result.isError !== 'boolean') return 'isError must be true or false';
  return undefined;
}

/** Problems with a run's eval record, one line each. */
export function evalSpecProblems(spec: EvalSpec | undefined): string[] {
  if (spec === undefined) return [];
  if (!isPlainObject(spec) || !Array.isArray(spec.served)) return ['eval.served must be a list of served calls'];
  const problems: string[] = [];
  spec.served.forEach((row, i) => {
    const at = `eval.served[${i}]`;
    if (!isPlainObject(row) || typeof row.tool !== 'string' || row.tool === '')
      return void problems.push(`${at} needs the tool it answers`);
    if (row.args !== undefined && !isPlainObject(row.args)) problems.push(`${at}.args must be an object`);
    if (row.argsHash !== undefined && typeof row.argsHash !== 'string')
      problems.push(`${at}.argsHash must be a string`);
    if (!Array.isArray(row.results) || row.results.length === 0)
      return void problems.push(`${at} needs at least one result`);
    row.results.forEach((r, j) => {
      const problem = resultProblem(r);
      if (problem) problems.push(`${at}.results[${j}] ${problem}`);
    });
  });
  if (!absentOrAll(spec.followUps, (f) => typeof f === 'string' && f.trim() !== ''))
    problems.push('eval.followUps must be a list of texts');
  const steer = (s: EvalSteer, i: number, all: EvalSteer[]) =>
    Number.isInteger(s?.turn) &&
    s.turn >= 1 &&
    typeof s.text === 'string' &&
    s.text.trim() !== '' &&
    (i === 0 || all[i - 1].turn <= s.turn);
  if (!absentOrAll(spec.steer, steer))
    problems.push('eval.steer must be a list of { turn, text } by turn (turns from 1, texts not empty)');
  const decision = (d: EvalDecision) =>
    isPlainObject(d) &&
    typeof d.tool === 'string' &&
    (d.decision === 'approve' || d.decision === 'reject') &&
    (d.reason === undefined || typeof d.reason === 'string');
  if (!absentOrAll(spec.decisions, decision))
    problems.push('eval.decisions must be a list of { tool, decision: "approve" | "reject", reason? }');
  if (spec.children !== undefined) {
    const list = Array.isArray(spec.children) ? spec.children : [undefined];
    list.forEach((c, i) => {
      if (!isPlainObject(c) || typeof c.agent !== 'string' || typeof c.argsHash !== 'string' || !Array.isArray(c.runs))
        return void problems.push(`eval.children[${i}] needs the agent, the arguments' hash and the runs`);
      c.runs.forEach((run, j) =>
        problems.push(...evalSpecProblems(run).map((p) => p.replace(/^eval\./, `eval.children[${i}].runs[${j}].`))),
      );
    });
  }
  if (spec.liveReads !== undefined && typeof spec.liveReads !== 'boolean')
    problems.push('eval.liveReads must be true or false');
  return problems;
}
