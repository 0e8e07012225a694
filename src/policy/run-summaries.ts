/**
 * The one-line summaries a run's activities and waits carry on the Temporal timeline, so that
 * its model calls, tool calls and waits tell themselves apart: `turn 3 · model openai/gpt-5-mini`,
 * `tool fs_read README.md`, `waiting for approval of fs_write`.
 */
import { isPlainObject } from '../common/type-helpers';
import { previewText } from './previews';

/** Characters of a tool call's telling argument kept in its summary. */
export const SUMMARY_ARG_CHARS = 40;

/** Argument names that say most about a call, most telling first. */
const TELLING_ARGS = ['path', 'file', 'filename', 'url', 'uri', 'query', 'q', 'command', 'cmd', 'pattern', 'name'];

const isPlain = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/**
 * The argument that says most about a call, kept short: a path, URL, query or command when there
 * is one, else the first string argument, else the plain arguments as `name=value`.
 */
export function tellingArgument(args: unknown): string | undefined {
  if (!isPlainObject(args)) return undefined;
  const entries = Object.entries(args);
  const named = TELLING_ARGS.map((key) => args[key]).find((value) => typeof value === 'string' && value.trim() !== '');
  const text = named ?? entries.find(([, value]) => typeof value === 'string' && value.trim() !== '')?.[1];
  if (typeof text === 'string') return previewText(text, SUMMARY_ARG_CHARS);
  const plain = entries.filter(([, value]) => isPlain(value)).map(([key, value]) => `${key}=${String(value)}`);
  return plain.length > 0 ? previewText(plain.join(' '), SUMMARY_ARG_CHARS) : undefined;
}

/** A call by its tool and telling argument: `fs_read README.md`. */
function callText(name: string, args: unknown): string {
  const arg = tellingArgument(args);
  return arg ? `${name} ${arg}` : name;
}

/** A tool call: `tool fs_read README.md`. */
export const toolCallSummary = (name: string, args: unknown): string => `tool ${callText(name, args)}`;

/** Quick calls a model call's summary names one by one; more are counted. */
const RAN_CALLS_NAMED = 3;

/** What a model call's summary says beside its step and model. */
export interface ModelCallNotes {
  /**
   * The quick tool calls the step before ran inside its own model call: they have no row of their
   * own, and a summary is written when its call is scheduled, before its answer names any call.
   */
  ran?: { step: string; calls: readonly { name: string; arguments: unknown }[] };
  /** The limit whose task queue the call moved to, when the step's call before found the limit. */
  movedTo?: string;
}

/**
 * A model call of one step of a run: `turn 3 · model openai/gpt-5-mini`, then what it notes:
 * `moved to limit anthropic's queue`, `turn 2 ran tool fs_read README.md`.
 */
export function modelCallSummary(step: string, model: string, notes: ModelCallNotes = {}): string {
  const parts = [`${step} · model ${model}`];
  if (notes.movedTo) parts.push(`moved to limit ${notes.movedTo}'s queue`);
  const calls = notes.ran?.calls ?? [];
  if (notes.ran && calls.length > 0) {
    const named = calls.slice(0, RAN_CALLS_NAMED).map((c) => callText(c.name, c.arguments));
    const more = calls.length - named.length;
    const list = `${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
    parts.push(`${notes.ran.step} ran ${calls.length === 1 ? 'tool' : 'tools'} ${list}`);
  }
  return parts.join(' · ');
}

/** A compaction: `summarise 40 messages · model openai/gpt-5-mini`. */
export const summariseSummary = (messages: number, model: string): string =>
  `summarise ${messages} message${messages === 1 ? '' : 's'} · model ${model}`;

/** The step name of a plain agent turn. */
export const turnStep = (turn: number): string => `turn ${turn}`;

/**
 * The step name of a pev role's turn: `planner round 2`, `executor todo 2 round 1`,
 * `verifier round 1`; from the second cycle on, the cycle too.
 */
export function roleStep(role: string, at: { round: number; cycle: number; todoId?: string }): string {
  const todo = at.todoId !== undefined ? ` todo ${at.todoId}` : '';
  const cycle = at.cycle > 1 ? `, cycle ${at.cycle}` : '';
  return `${role}${todo} round ${at.round}${cycle}`;
}

const names = (tools: readonly string[]): string => [...new Set(tools)].join(', ');

/** The wait for approvals and client results: `waiting for approval of fs_write`. */
export function decisionWaitSummary(approvals: readonly string[], clientTools: readonly string[]): string {
  const parts = [
    ...(approvals.length > 0 ? [`approval of ${names(approvals)}`] : []),
    ...(clientTools.length > 0 ? [`the client's result of ${names(clientTools)}`] : []),
  ];
  return `waiting for ${parts.join(' and ') || 'decisions'}`;
}

/** The wait for a decision on a pev plan. */
export const PLAN_WAIT_SUMMARY = 'waiting for plan decision';
