/**
 * A run's current details: what it is doing now, as the Markdown the Temporal Web UI and
 * `temporal workflow metadata` show. The phase, the turn and its model, the turns and cost used
 * against the run's limits, the tools running, a kind's own progress, and while the run waits,
 * what for, with the exact commands that answer it. Once it has ended: how, with what it used.
 */
import { tellingArgument } from './run-summaries';
import { clip, previewText } from './previews';
import { ASK_USER, questionOf } from './ask-user';
import { code, fenced, markdownText } from './markdown';
import { usd } from '../common/decimal';

/** Characters of a waiting call's arguments shown; longer ones are cut. */
export const DETAILS_ARGS_CHARS = 1_500;

/** A tool call as the details show it. */
export interface DetailsCall {
  toolCallId: string;
  tool: string;
  args: unknown;
  /** The child run (a sub-agent) the call waits in, when it is not this run's own. */
  runId?: string;
  /** The hash of the arguments an approver decides on (a call waiting for approval). */
  argsHash?: string;
}

/** Where a waiting call is, when it is in a child run: decided through this run all the same. */
const inChild = (call: DetailsCall): string => (call.runId ? ` in the sub-agent run ${code(call.runId)}` : '');

export interface CurrentDetailsInput {
  /** The workflow id, for the commands. */
  id: string;
  kind: string;
  /** What the run calls its current step (`turn 3`, `planner round 2`). */
  step: string;
  /** The phase the search attributes show. */
  phase: string;
  turn: number;
  /** The run's turn limit. */
  maxTurns?: number;
  /** What the run has spent (its children's included), and its cost limit when it has one. */
  cost?: { usd: number; maxUsd?: number };
  model: string;
  /** What the step does right now (calling the model, summarising, running tools). */
  doing?: string;
  running: readonly DetailsCall[];
  /** Calls waiting for an approval. */
  approvals: readonly DetailsCall[];
  /** Client tool calls waiting for their result. */
  clientTools: readonly DetailsCall[];
  /** A kind's own progress (a pev run's plan), as Markdown; shown while the run works and after it ended. */
  progress?: string;
  /** A kind's own wait (a pev plan awaiting its decision), as Markdown from {@link planDecisionDetails}. */
  waiting?: string;
  /** Set once the run has ended. */
  ended?: { stopReason: string; status: string; error?: string };
}

/** An argument of a command line, quoted when the shell would split or expand it. */
export function shellWord(text: string): string {
  return /^[\w.:@/+=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

const argsBlock = (args: unknown): string =>
  fenced(clip(JSON.stringify(args ?? {}, null, 2), DETAILS_ARGS_CHARS), 'json');

const cli = (...words: string[]): string => code(['durable-agents', ...words].join(' '));

/** How the Web UI's *Send an Update* dialog decides the same (`decision` may be `reject`, with a `reason`). */
const webUiUpdate = (name: string, data: Record<string, unknown>): string =>
  `- or in the Web UI: *More Actions* → *Send an Update*, update ${code(name)} with ${code(JSON.stringify(data))}`;

function approvalSection(id: string, call: DetailsCall): string {
  const [run, callId] = [shellWord(id), shellWord(call.toolCallId)];
  return [
    `**Waiting for approval** of ${code(call.tool)} (call ${code(call.toolCallId)})${inChild(call)} ` +
      'with these arguments:',
    argsBlock(call.args),
    `- approve: ${cli('approve', run, callId)}`,
    `- reject: ${cli('reject', run, callId, '--reason', "'…'")}`,
    ...(call.runId === undefined && call.argsHash !== undefined
      ? [webUiUpdate('decideApproval', { toolCallId: call.toolCallId, argsHash: call.argsHash, decision: 'approve' })]
      : []),
  ].join('\n\n');
}

function clientSection(id: string, call: DetailsCall): string {
  const [run, callId] = [shellWord(id), shellWord(call.toolCallId)];
  if (call.tool === ASK_USER)
    return [
      `**Waiting for the user's answer** (call ${code(call.toolCallId)})${inChild(call)} to:`,
      fenced(previewText(questionOf((call.args ?? {}) as Record<string, unknown>), DETAILS_ARGS_CHARS)),
      `- answer: ${cli('answer', run, "'…'", '--call', callId)}`,
    ].join('\n\n');
  return [
    `**Waiting for the client's result** of ${code(call.tool)} (call ${code(call.toolCallId)})${inChild(call)} ` +
      'with these arguments:',
    argsBlock(call.args),
    `- answer: ${cli('tool-result', run, callId, `'"…"'`)}`,
  ].join('\n\n');
}

/** The wait for a decision on a pev plan: its todos and the commands that approve or reject it. */
export function planDecisionDetails(id: string, todos: readonly { id: string; description: string }[]): string {
  const run = shellWord(id);
  const list = todos.map((t) => `${t.id}. ${markdownText(previewText(t.description, 200))}`).join('\n');
  return [
    '**Waiting for plan decision** on these todos:',
    list || '(no todos)',
    `- approve: ${cli('plan', run)}`,
    `- reject: ${cli('plan', run, '--reject', '--feedback', "'…'")}`,
    webUiUpdate('decidePlan', { approve: true }),
  ].join('\n\n');
}

/** `2 of 40`: a count and its limit, when there is one. */
const ofLimit = (count: string, limit: string | undefined): string =>
  limit === undefined ? count : `${count} of ${limit}`;

/** The Markdown of a run's current details. */
export function currentDetails(input: CurrentDetailsInput): string {
  const { ended, cost, maxTurns } = input;
  const head = [
    `**${input.step}** · ${input.kind} run`,
    '',
    `- phase: ${input.phase}`,
    `- ${ended ? 'turns' : 'turn'}: ${ofLimit(String(input.turn), maxTurns?.toString())}`,
    ...(cost
      ? [`- cost: ${markdownText(ofLimit(usd(cost.usd), cost.maxUsd === undefined ? undefined : usd(cost.maxUsd)))}`]
      : []),
    `- model: ${code(input.model)}`,
  ];
  const progress = input.progress ? [input.progress] : [];
  if (ended) {
    const { status, stopReason, error } = ended;
    const reason = stopReason === status ? '' : ` (${stopReason})`;
    head.push(`- ended: ${status}${reason}${error ? `: ${markdownText(previewText(error, 300))}` : ''}`);
    return [head.join('\n'), ...progress].join('\n\n');
  }
  if (input.doing) head.push(`- now: ${markdownText(input.doing)}`);
  const sections = [head.join('\n'), ...progress];
  if (input.running.length > 0) {
    const calls = input.running.map((c) => {
      const arg = tellingArgument(c.args);
      return `- ${code(c.tool)}${arg ? ` ${markdownText(arg)}` : ''}`;
    });
    sections.push(['**Running tools**', ...calls].join('\n'));
  }
  sections.push(...input.approvals.map((call) => approvalSection(input.id, call)));
  sections.push(...input.clientTools.map((call) => clientSection(input.id, call)));
  if (input.waiting) sections.push(input.waiting);
  return sections.join('\n\n');
}
