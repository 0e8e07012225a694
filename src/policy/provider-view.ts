/**
 * The one conversion from the agent's log to the provider view, done at the model-call boundary
 * (docs/design.md, Bodies by reference): app-only kinds are dropped, a summary becomes a user message,
 * reasoning signed by another provider is not handed over (provider switching), and old tool
 * results are masked (docs/design.md, Masking).
 */
import type { LoggedBody } from '../contracts/stored-body';
import {
  toolCallsOf,
  type AssistantMessage,
  type Message,
  type ToolCallBlock,
  type ToolResultMessage,
  type UserMessage,
} from '../contracts/message-model';
import type { ProviderId } from '../contracts/model-ref';
import { MIN_MASKED_TOKENS, isMasked, maskStub } from './masking';
import { estimateBodyTokens, estimateTextTokens } from './token-estimate';
import type { PlanItem } from '../contracts/run-spec';
import type { UserOrigin } from '../contracts/message-drafts';

export const SUMMARY_PREFIX = 'Summary of the earlier conversation:\n';

/**
 * What stands in for a summary when the oldest messages left the view without one (a summary
 * failed and the context had to fit): a note and the conversation's first message, the task.
 */
export const DROPPED_NOTE =
  '(No summary yet: the earlier messages are left out here to fit the context window.) The conversation began with:\n';

/** Estimated tokens of the dropped-view lead, given the tokens of the conversation's first message. */
export const droppedLeadTokens = (firstTokens: number): number =>
  estimateTextTokens(SUMMARY_PREFIX + DROPPED_NOTE) + firstTokens;

export function summaryMessage(text: string, timestamp: number): UserMessage {
  return { role: 'user', content: `${SUMMARY_PREFIX}${text}`, timestamp };
}

function handOver(m: AssistantMessage, provider: ProviderId): AssistantMessage {
  if (m.provider === provider) return m;
  const content = m.content.filter((b) => b.type !== 'thinking');
  return { ...m, content: content.length > 0 ? content : [{ type: 'text', text: '' }] };
}

/** A stored user message as the provider sees it: where it came from and for which role stay in the store. */
function userMessage(body: UserMessage & { origin?: UserOrigin; agentRole?: string }): UserMessage {
  if (body.origin === undefined && body.agentRole === undefined) return body;
  return { role: body.role, content: body.content, timestamp: body.timestamp };
}

/** Where masking applies: the log position of the first entry, and the boundary (policy/masking.ts). */
export interface ViewMask {
  fromSeq: number;
  maskBefore: number;
}

/** A tool result as the model sees it under the mask: whole, or as a stub naming the call. */
function maskedResult(
  body: ToolResultMessage,
  seq: number,
  calls: ReadonlyMap<string, ToolCallBlock>,
  mask: ViewMask | undefined,
): ToolResultMessage {
  if (!mask) return body;
  const chars = body.content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
  // Every text counts at least a token per four characters: when that bound is over the minimum,
  // the result is not estimated (which reads every character, at every call).
  const atLeast = Math.floor(chars / 4);
  const tokens = atLeast > MIN_MASKED_TOKENS ? atLeast : estimateBodyTokens(body);
  if (!isMasked({ seq, kind: 'tool_result', isError: body.isError, tokens }, mask.maskBefore)) return body;
  const call = calls.get(body.toolCallId) ?? { id: body.toolCallId, name: body.toolName };
  return { ...body, content: [{ type: 'text', text: maskStub(call, chars) }] };
}

/** Builds the provider messages for a call to `provider`, in log order, with old results masked under `mask`. */
export function toProviderMessages(
  entries: readonly LoggedBody[],
  provider: ProviderId,
  summary?: { text: string; timestamp: number },
  mask?: ViewMask,
): Message[] {
  const out: Message[] = summary ? [summaryMessage(summary.text, summary.timestamp)] : [];
  const calls = new Map<string, ToolCallBlock>();
  entries.forEach(({ kind, body }, i) => {
    if (kind === 'user' && body.role === 'user') out.push(userMessage(body));
    else if (kind === 'assistant' && body.role === 'assistant') {
      for (const call of toolCallsOf(body)) calls.set(call.id, call);
      out.push(handOver(body, provider));
    } else if (kind === 'tool_result' && body.role === 'tool_result')
      out.push(maskedResult(body, (mask?.fromSeq ?? 0) + i, calls, mask));
    else if (kind === 'summary' && body.role === 'summary') out.push(summaryMessage(body.text, body.timestamp));
  });
  return out;
}

/**
 * What a provider would refuse in `messages`: a tool call without its result before the next
 * message that is not a result, and a result without its call. One line each; empty when none.
 */
export function toolPairingProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  let open = new Map<string, string>();
  const closeAll = () => {
    for (const [id, name] of open) problems.push(`the tool call ${id} (${name}) has no result`);
    open = new Map();
  };
  for (const m of messages) {
    if (m.role === 'tool_result') {
      if (open.delete(m.toolCallId)) continue;
      problems.push(`the tool result of ${m.toolCallId} (${m.toolName}) answers no call before it`);
      continue;
    }
    closeAll();
    if (m.role === 'assistant') for (const call of toolCallsOf(m)) open.set(call.id, call.name);
  }
  closeAll();
  return problems;
}

/** Plan recitation: the todo list as text, each item by its id, put at the end of the context each turn. */
export function planRecitation(plan: readonly PlanItem[] | undefined): string | undefined {
  if (!plan || plan.length === 0) return undefined;
  const lines = plan.map((t) => `${t.done ? '[x]' : '[ ]'} ${t.id}. ${t.title}`);
  return `Current plan (todo list):\n${lines.join('\n')}`;
}
