/**
 * The one conversion from the agent's log to the provider view, done at the model-call boundary
 * (docs/design.md, Bodies by reference): app-only kinds are dropped, a summary becomes a user message, and
 * reasoning signed by another provider is not handed over (provider switching).
 */
import type { LoggedBody } from '../contracts/stored-body';
import type { AssistantMessage, Message, UserMessage } from '../contracts/message-model';
import type { ProviderId } from '../contracts/model-ref';
import type { PlanItem } from '../contracts/agent-run';
import type { UserOrigin } from '../contracts/agent-activities';

export const SUMMARY_PREFIX = 'Summary of the earlier conversation:\n';

export function summaryMessage(text: string, timestamp: number): UserMessage {
  return { role: 'user', content: `${SUMMARY_PREFIX}${text}`, timestamp };
}

function handOver(m: AssistantMessage, provider: ProviderId): AssistantMessage {
  if (m.provider === provider) return m;
  const content = m.content.filter((b) => b.type !== 'thinking');
  return { ...m, content: content.length > 0 ? content : [{ type: 'text', text: '' }] };
}

/** A stored user message as the provider sees it: where it came from stays in the store. */
function userMessage(body: UserMessage & { origin?: UserOrigin }): UserMessage {
  if (body.origin === undefined) return body;
  return { role: body.role, content: body.content, timestamp: body.timestamp };
}

/** Builds the provider messages for a call to `provider`, in log order. */
export function toProviderMessages(
  entries: readonly LoggedBody[],
  provider: ProviderId,
  summary?: { text: string; timestamp: number },
): Message[] {
  const out: Message[] = summary ? [summaryMessage(summary.text, summary.timestamp)] : [];
  for (const { kind, body } of entries) {
    if (kind === 'user' && body.role === 'user') out.push(userMessage(body));
    else if (kind === 'assistant' && body.role === 'assistant') out.push(handOver(body, provider));
    else if (kind === 'tool_result' && body.role === 'tool_result') out.push(body);
    else if (kind === 'summary' && body.role === 'summary') out.push(summaryMessage(body.text, body.timestamp));
  }
  return out;
}

/** Plan recitation: the todo list as text, put at the end of the context each turn. */
export function planRecitation(plan: readonly PlanItem[] | undefined): string | undefined {
  if (!plan || plan.length === 0) return undefined;
  const lines = plan.map((t, i) => `${t.done ? '[x]' : '[ ]'} ${i + 1}. ${t.title}`);
  return `Current plan (todo list):\n${lines.join('\n')}`;
}
