/**
 * A run's current details: what it is doing now, as the Markdown the Temporal Web UI and
 * `temporal workflow metadata` show. The phase, the turn and its model, the tools running, and
 * while the run waits, what for, with the exact commands that answer it.
 */
import { shorten, tellingArgument } from './run-summaries';
import { ASK_USER, questionOf } from './ask-user';

/** Characters of a waiting call's arguments shown; longer ones are cut. */
export const DETAILS_ARGS_CHARS = 1_500;

/** A tool call as the details show it. */
export interface DetailsCall {
  toolCallId: string;
  tool: string;
  args: unknown;
  /** The child run (a sub-agent) the call waits in, when it is not this run's own. */
  runId?: string;
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
  model: string;
  /** What the step does right now (calling the model, summarising, running tools). */
  doing?: string;
  running: readonly DetailsCall[];
  /** Calls waiting for an approval. */
  approvals: readonly DetailsCall[];
  /** Client tool calls waiting for their result. */
  clientTools: readonly DetailsCall[];
  /** A kind's own wait (a pev plan awaiting its decision), as Markdown from {@link planDecisionDetails}. */
  waiting?: string;
  /** Set once the run has ended. */
  ended?: { stopReason: string; status: string; error?: string };
}

/** An argument of a command line, quoted when the shell would split or expand it. */
export function shellWord(text: string): string {
  return /^[\w.:@/+=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A fenced block that no backtick run inside `text` can close. */
function fenced(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

/** Inline code that no backtick inside `text` can close. */
function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

function argsBlock(args: unknown): string {
  const json = JSON.stringify(args ?? {}, null, 2);
  return fenced(json.length > DETAILS_ARGS_CHARS ? `${json.slice(0, DETAILS_ARGS_CHARS - 1)}…` : json, 'json');
}

const cli = (...words: string[]): string => code(['durable-agents', ...words].join(' '));

function approvalSection(id: string, call: DetailsCall): string {
  const [run, callId] = [shellWord(id), shellWord(call.toolCallId)];
  return [
    `**Waiting for approval** of ${code(call.tool)} (call ${code(call.toolCallId)})${inChild(call)} ` +
      'with these arguments:',
    argsBlock(call.args),
    `- approve: ${cli('approve', run, callId)}`,
    `- reject: ${cli('reject', run, callId, '--reason', "'…'")}`,
  ].join('\n\n');
}

function clientSection(id: string, call: DetailsCall): string {
  const [run, callId] = [shellWord(id), shellWord(call.toolCallId)];
  if (call.tool === ASK_USER)
    return [
      `**Waiting for the user's answer** (call ${code(call.toolCallId)})${inChild(call)} to:`,
      fenced(shorten(questionOf((call.args ?? {}) as Record<string, unknown>), DETAILS_ARGS_CHARS)),
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
  const list = todos.map((t) => `${t.id}. ${shorten(t.description, 200)}`).join('\n');
  return [
    '**Waiting for plan decision** on these todos:',
    list || '(no todos)',
    `- approve: ${cli('plan', run)}`,
    `- reject: ${cli('plan', run, '--reject', '--feedback', "'…'")}`,
  ].join('\n\n');
}

/** The Markdown of a run's current details. */
export function currentDetails(input: CurrentDetailsInput): string {
  const head = [
    `**${input.step}** · ${input.kind} run`,
    `- phase: ${input.phase}`,
    `- turn: ${input.turn}`,
    `- model: ${code(input.model)}`,
  ];
  if (input.ended) {
    const { status, stopReason, error } = input.ended;
    const reason = stopReason === status ? '' : ` (${stopReason})`;
    return [...head, `- ended: ${status}${reason}${error ? `: ${shorten(error, 300)}` : ''}`].join('\n');
  }
  if (input.doing) head.push(`- now: ${input.doing}`);
  const sections = [head.join('\n')];
  if (input.running.length > 0) {
    const calls = input.running.map((c) => {
      const arg = tellingArgument(c.args);
      return `- ${code(c.tool)}${arg ? ` ${arg}` : ''}`;
    });
    sections.push(['**Running tools**', ...calls].join('\n'));
  }
  sections.push(...input.approvals.map((call) => approvalSection(input.id, call)));
  sections.push(...input.clientTools.map((call) => clientSection(input.id, call)));
  if (input.waiting) sections.push(input.waiting);
  return sections.join('\n\n');
}
