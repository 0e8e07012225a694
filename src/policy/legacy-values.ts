/**
 * Values written before every string union was snake_case. Histories recorded then, and content
 * stores written then, carry camelCase ones; these read them as today's values, so old runs replay
 * and old conversations load unchanged.
 */
import type { AgentMessageKind } from '../contracts/agent-run';
import type { StopReason } from '../contracts/message-model';
import type { StoredBody } from '../contracts/stored-body';

const LEGACY: Readonly<Record<string, string>> = {
  toolResult: 'tool_result',
  contextNote: 'context_note',
  systemEvent: 'system_event',
  toolLog: 'tool_log',
  toolCall: 'tool_call',
  toolUse: 'tool_use',
  stopSequence: 'stop_sequence',
  contentFilter: 'content_filter',
};

const current = <T extends string>(value: T): T => (LEGACY[value] ?? value) as T;

/** A log entry's kind. */
export const kindOf = (entry: { kind: AgentMessageKind }): AgentMessageKind => current(entry.kind);

/** A stored body with its role, block types and stop reason as today's values. */
export function currentBody(body: StoredBody): StoredBody {
  const role = current(body.role);
  if (role === body.role && (body.role !== 'assistant' || !needsUpdate(body))) return body;
  if (body.role !== 'assistant') return { ...body, role } as StoredBody;
  return {
    ...body,
    stopReason: current<StopReason>(body.stopReason),
    content: body.content.map((block) => ({ ...block, type: current(block.type) }) as typeof block),
  };
}

function needsUpdate(body: Extract<StoredBody, { role: 'assistant' }>): boolean {
  return body.stopReason in LEGACY || body.content.some((block) => block.type in LEGACY);
}
