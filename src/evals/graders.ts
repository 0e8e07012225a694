/**
 * Graders over what a case's run did (docs/evals.md): its final text, its tool calls, its approvals,
 * its stop reason, its turns, tokens, cost and drift, and the case's own grader functions. A grader
 * that throws has failed, with its message.
 */
import { z } from 'zod';
import { canonicalJson } from '../common/canonical-json';
import { errorText } from '../common/error-text';
import { totalTokens } from '../contracts/message-model';
import type { GraderOutcome } from '../contracts/eval-workflow';
import { totalDrift } from '../policy/served-tools';
import type { Bound, CaseRun, DataGrader, Grader } from './eval-case';

type Call = CaseRun['toolCalls'][number];

export type { GraderOutcome } from '../contracts/eval-workflow';

const quoted = (s: string): string => JSON.stringify(s);

/** The name a grader is reported under: its own, or what it checks. */
export function graderName(g: Grader): string {
  if (g.name) return g.name;
  switch (g.type) {
    case 'check':
      return g.name;
    case 'text_contains':
      return `final text contains ${quoted(g.text)}`;
    case 'text_matches':
      return `final text matches /${g.pattern}/${g.flags ?? ''}`;
    case 'text_json_schema':
      return 'final text parses against the JSON schema';
    case 'tool_called':
      return `${g.tool} called`;
    case 'tool_not_called':
      return `${g.tool} not called`;
    case 'tool_called_with':
      return `${g.tool} called with ${canonicalJson(g.args)}`;
    case 'tools_in_order':
      return `tools in order: ${g.tools.join(', ')}`;
    case 'approval_requested':
      return `approval requested for ${g.tool}`;
    case 'stop_reason':
      return `stop reason ${g.is}`;
    case 'within':
      return 'within bounds';
    case 'effects_as_recorded':
      return 'calls with side effects as recorded';
  }
}

/** Why `value` is outside `bound`, if it is. */
function outside(what: string, value: number, bound: Bound | undefined): string | undefined {
  if (bound?.max !== undefined && value > bound.max) return `${what} ${value} above ${bound.max}`;
  if (bound?.min !== undefined && value < bound.min) return `${what} ${value} below ${bound.min}`;
  return undefined;
}

/** The JSON an answer holds: the whole text, or its one fenced block. */
function answerJson(text: string): unknown {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n```/.exec(text);
  return JSON.parse(fenced ? fenced[1] : text.trim());
}

/** The first call to a tool with side effects that differs from the recording, if one does. */
export function firstEffectDifference(recorded: readonly Call[], run: CaseRun): string | undefined {
  const effects = new Set(run.result.eval?.sideEffectTools ?? []);
  const of = (calls: readonly Call[]) => calls.filter((c) => effects.has(c.name));
  const [was, now] = [of(recorded), of(run.toolCalls)];
  const text = (c: Call | undefined) => (c ? `${c.name} ${canonicalJson(c.arguments)}` : 'no call');
  for (let i = 0; i < Math.max(was.length, now.length); i++) {
    if (text(was[i]) !== text(now[i]))
      return `call ${i + 1} with side effects: recorded ${text(was[i])}, replayed ${text(now[i])}`;
  }
  return undefined;
}

/** Whether `args` holds every field of `want` with an equal value. */
const holds = (args: Record<string, unknown>, want: Record<string, unknown>): boolean =>
  Object.entries(want).every(([k, v]) => canonicalJson(args[k]) === canonicalJson(v));

/** A data grader's verdict: nothing when it holds, else why not. */
function dataVerdict(g: DataGrader, run: CaseRun): string | undefined {
  const text = run.result.finalText;
  const calls = run.toolCalls;
  const named = (tool: string) => calls.filter((c) => c.name === tool);
  switch (g.type) {
    case 'text_contains':
      return text.includes(g.text) ? undefined : `the final text does not contain ${quoted(g.text)}`;
    case 'text_matches':
      return new RegExp(g.pattern, g.flags).test(text) ? undefined : `the final text does not match /${g.pattern}/`;
    case 'text_json_schema': {
      let value: unknown;
      try {
        value = answerJson(text);
      } catch {
        return 'the final text is not JSON';
      }
      const read = z.fromJSONSchema(g.schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(value);
      return read.success ? undefined : `the final text does not fit the schema: ${z.prettifyError(read.error)}`;
    }
    case 'tool_called': {
      const n = named(g.tool).length;
      if (!g.times) return n > 0 ? undefined : `${g.tool} was not called`;
      return outside(`${g.tool} calls`, n, g.times);
    }
    case 'tool_not_called': {
      const n = named(g.tool).length;
      return n === 0 ? undefined : `${g.tool} was called ${n} time${n === 1 ? '' : 's'}`;
    }
    case 'tool_called_with': {
      const made = named(g.tool);
      if (made.some((c) => holds(c.arguments, g.args))) return undefined;
      if (made.length === 0) return `${g.tool} was not called`;
      const had = made.map((c) => canonicalJson(c.arguments)).join(', ');
      return `no call of ${g.tool} had ${canonicalJson(g.args)}; its calls had ${had}`;
    }
    case 'tools_in_order': {
      let at = 0;
      for (const c of calls) if (c.name === g.tools[at]) at++;
      if (at === g.tools.length) return undefined;
      const after = at === 0 ? 'the start' : g.tools[at - 1];
      return `${g.tools[at]} was not called after ${after} (calls: ${calls.map((c) => c.name).join(', ') || 'none'})`;
    }
    case 'approval_requested':
      return run.approvalsRequested.includes(g.tool) ? undefined : `no approval was requested for ${g.tool}`;
    case 'stop_reason':
      return run.result.stopReason === g.is ? undefined : `the stop reason is ${run.result.stopReason}, not ${g.is}`;
    case 'within':
      return (
        outside('turns', run.result.turns, g.turns) ??
        outside('tokens', totalTokens(run.result.usage), g.tokens) ??
        outside('cost (USD)', run.result.costUsd, g.costUsd) ??
        outside('drift', totalDrift(run.result.eval), g.drift)
      );
    case 'effects_as_recorded':
      return firstEffectDifference(g.calls, run);
  }
}

/** One grader's outcome; a throw is a failure with its message. */
async function gradeOne(g: Grader, run: CaseRun): Promise<GraderOutcome> {
  const name = graderName(g);
  try {
    if (g.type === 'check') {
      const verdict = await g.check(run);
      if (verdict === false) return { name, pass: false, message: `${name} returned false` };
      if (typeof verdict === 'string') return { name, pass: false, message: verdict };
      return { name, pass: true };
    }
    const why = dataVerdict(g, run);
    return why === undefined ? { name, pass: true } : { name, pass: false, message: why };
  } catch (err) {
    return { name, pass: false, message: `the grader threw: ${errorText(err)}` };
  }
}

/** Every grader's outcome, in the case's order. */
export const grade = (graders: readonly Grader[], run: CaseRun): Promise<GraderOutcome[]> =>
  Promise.all(graders.map((g) => gradeOne(g, run)));
