/**
 * An eval case (docs/evals.md): a task, the served results of its tool calls, the approvals to give,
 * the follow-ups to send, and the graders of what the run did. A case file (`evals/*.json`) holds
 * one case or a list; a TypeScript case is written with {@link defineEvalCase}, which may add
 * grader functions.
 */
import { z } from 'zod';
import type { StartAgentOptions } from '../client';
import type { AgentOptions } from '../contracts/agent-options';
import type { AgentEvent } from '../contracts/agent-events';
import type { AgentResult } from '../contracts/agent-run';
import type { EvalSteer, RecordedChildren, ServedCall } from '../contracts/eval-spec';
import type { RunToolCall } from '../contracts/run-message';
import type { AgentStopReason } from '../contracts/run-status';

/** What a case's run did, as the graders read it. */
export interface CaseRun {
  result: AgentResult;
  /** The run's events (its state's, in order); empty when no grader reads them (`check`, `approval_requested`). */
  events: AgentEvent[];
  /** Every tool call the model made, in order, with its arguments. */
  toolCalls: Pick<RunToolCall, 'name' | 'arguments'>[];
  /** The tools whose calls asked a person for approval, in order. */
  approvalsRequested: string[];
  /** From the start to the result, in ms. */
  latencyMs: number;
}

/** What a grader function says: true or nothing passes; false fails; a string fails with that message. */
export type GraderVerdict = boolean | string | undefined | void;

/** At most (and at least) a number. */
export interface Bound {
  max?: number;
  min?: number;
}

/** A grader written as data: what a JSON case file holds. */
export type DataGrader =
  | { type: 'text_contains'; text: string }
  | { type: 'text_matches'; pattern: string; flags?: string }
  | { type: 'text_json_schema'; schema: Record<string, unknown> }
  | { type: 'tool_called'; tool: string; times?: Bound }
  | { type: 'tool_not_called'; tool: string }
  /** A call of the tool whose arguments hold these (equal values; other arguments may be there too). */
  | { type: 'tool_called_with'; tool: string; args: Record<string, unknown> }
  /** The tools called in this order (other calls may come between). */
  | { type: 'tools_in_order'; tools: string[] }
  | { type: 'approval_requested'; tool: string }
  | { type: 'stop_reason'; is: AgentStopReason }
  | { type: 'within'; turns?: Bound; tokens?: Bound; costUsd?: Bound; drift?: Bound }
  /** The calls to the run's tools with side effects were these, in this order, each with exactly these arguments. */
  | { type: 'effects_as_recorded'; calls: { name: string; arguments: Record<string, unknown> }[] };

/** A grader function of a TypeScript case, over what the run did. */
export interface CodeGrader {
  type: 'check';
  name: string;
  check: (run: CaseRun) => GraderVerdict | Promise<GraderVerdict>;
}

export type Grader = (DataGrader | CodeGrader) & { name?: string };

/** A decision the case gives to the calls of a tool that need approval; calls of other tools are rejected. */
export interface CaseApproval {
  tool: string;
  decision: 'approve' | 'reject';
  reason?: string;
}

/** Run options a case may lay over its own: everything but what the eval itself sets. */
export type CaseOptions = Omit<StartAgentOptions, 'task' | 'eval' | 'fleet' | 'session' | 'id' | 'continueFrom'>;

/** A model that grades the case's run against a rubric (docs/evals.md, The judge). */
export interface CaseJudge {
  /** What the judge holds the run's answer to. */
  rubric: string;
  /** The judge's model (`provider/model`); absent: the eval's (`--judge`). */
  model?: string;
  /** Show the judge the run's tool calls too. */
  toolCalls?: boolean;
}

export interface EvalCase {
  name: string;
  task: string;
  /** The model; absent: the one `eval run --model` names. */
  model?: string;
  systemPrompt?: string;
  /** The run's tool selection (names or patterns); absent: every tool of the worker. */
  tools?: string[];
  /** The tools whose calls need approval. */
  approve?: string[];
  /** The served results of its tool calls. */
  stubs?: ServedCall[];
  /** A replayed case's recorded children: each sub-agent call's child is served its own table (`eval.children`). */
  children?: RecordedChildren[];
  /** An unmatched call to a tool without side effects runs live. */
  liveReads?: boolean;
  approvals?: CaseApproval[];
  /** Queued in the run as it starts (`eval.followUps`); each starts a new turn when the run would otherwise end. */
  followUps?: string[];
  /** Steering that arrives while turn `turn` works (`eval.steer`), as a person's would. */
  steer?: EvalSteer[];
  limits?: AgentOptions['limits'];
  /** Run options laid over the case's own, record by record (a replay candidate's `config=FILE`). */
  options?: CaseOptions;
  /** Start from a recorded run's conversation up to the end of this turn, by reference (as `fork` does). */
  fromTurn?: { run: string; atTurn: number };
  graders: Grader[];
  /** A model-graded judge over the run's answer, beside the graders. */
  judge?: CaseJudge;
}

/** A case as TypeScript writes it: typed, returned as it is. */
export const defineEvalCase = (c: EvalCase): EvalCase => c;

const bound = z.strictObject({ max: z.number().optional(), min: z.number().optional() });
const record = z.record(z.string(), z.unknown());
/** The schema of a data grader: its `type`, its fields, and an optional `name`. */
const data = (type: DataGrader['type'], fields: z.ZodRawShape) =>
  z.strictObject({ type: z.literal(type), ...fields, name: z.string().optional() });
const GRADERS: Record<Grader['type'], z.ZodType> = {
  text_contains: data('text_contains', { text: z.string() }),
  text_matches: data('text_matches', { pattern: z.string(), flags: z.string().optional() }),
  text_json_schema: data('text_json_schema', { schema: record }),
  tool_called: data('tool_called', { tool: z.string(), times: bound.optional() }),
  tool_not_called: data('tool_not_called', { tool: z.string() }),
  tool_called_with: data('tool_called_with', { tool: z.string(), args: record }),
  tools_in_order: data('tools_in_order', { tools: z.array(z.string()).min(1) }),
  approval_requested: data('approval_requested', { tool: z.string() }),
  stop_reason: data('stop_reason', { is: z.string() }),
  within: data('within', {
    turns: bound.optional(),
    tokens: bound.optional(),
    costUsd: bound.optional(),
    drift: bound.optional(),
  }),
  effects_as_recorded: data('effects_as_recorded', {
    calls: z.array(z.strictObject({ name: z.string(), arguments: record })),
  }),
  check: z.object({
    type: z.literal('check'),
    name: z.string().min(1),
    check: z.custom<CodeGrader['check']>((v) => typeof v === 'function', 'a check grader needs a function'),
  }),
};

function graderProblem(g: unknown): string | undefined {
  const type = (g as { type?: unknown } | null)?.type;
  const schema = typeof type === 'string' ? GRADERS[type as Grader['type']] : undefined;
  if (!schema) return `unknown grader type ${JSON.stringify(type)}; known: ${Object.keys(GRADERS).join(', ')}`;
  const read = schema.safeParse(g);
  if (!read.success) return firstIssue(read.error);
  if (type === 'text_matches') {
    const { pattern, flags } = g as { pattern: string; flags?: string };
    if (!validPattern(pattern, flags)) return 'pattern: not a regular expression';
  }
  return undefined;
}

const servedResult = z.union([
  z.strictObject({ text: z.string(), isError: z.boolean().optional() }),
  z.strictObject({ throws: z.string() }),
]);
const evalCase = z.strictObject({
  name: z.string().min(1),
  task: z.string().min(1),
  model: z.string().optional(),
  systemPrompt: z.string().optional(),
  tools: z.array(z.string()).optional(),
  approve: z.array(z.string()).optional(),
  stubs: z
    .array(
      z.strictObject({
        tool: z.string().min(1),
        args: record.optional(),
        argsHash: z.string().optional(),
        results: z.array(servedResult).min(1),
        repeat: z.boolean().optional(),
      }),
    )
    .optional(),
  liveReads: z.boolean().optional(),
  approvals: z
    .array(z.strictObject({ tool: z.string(), decision: z.enum(['approve', 'reject']), reason: z.string().optional() }))
    .optional(),
  followUps: z.array(z.string().min(1)).optional(),
  steer: z.array(z.strictObject({ turn: z.number().int().min(1), text: z.string().min(1) })).optional(),
  limits: record.optional(),
  graders: z.array(z.unknown()).min(1),
  judge: z
    .strictObject({ rubric: z.string().min(1), model: z.string().optional(), toolCalls: z.boolean().optional() })
    .optional(),
});

/** The first problem of a zod error, as one line: where and what. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  if (issue.code === 'unrecognized_keys') return `${where}unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  return `${where}${issue.message}`;
}

function validPattern(pattern: string, flags?: string): boolean {
  try {
    new RegExp(pattern, flags);
    return true;
  } catch {
    return false;
  }
}

/** A case (or a list) read as given, or the one line saying what is wrong with it; `source` names it. */
export function parseCases(value: unknown, source: string): { cases: EvalCase[] } | { problem: string } {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) return { problem: `${source}: no cases` };
  const cases: EvalCase[] = [];
  for (const [i, item] of list.entries()) {
    const read = evalCase.safeParse(item);
    const at = Array.isArray(value) ? `${source}[${i}]` : source;
    if (!read.success) return { problem: `${at}: ${firstIssue(read.error)}` };
    for (const [j, g] of read.data.graders.entries()) {
      const problem = graderProblem(g);
      if (problem) return { problem: `${at}: graders[${j}]: ${problem}` };
    }
    cases.push(read.data as EvalCase);
  }
  return { cases };
}
