/**
 * From a conversation's log and its stored bodies to the run's messages ({@link RunMessage}): one
 * item per position in log order, a gap or an unreadable body as a `missing` item, and each
 * compaction summary before the first position after the range it replaced.
 */
import type { ConversationLog } from '../contracts/conversation-log';
import type { AgentMessageKind } from '../contracts/agent-run';
import type { RunMessage } from '../contracts/run-message';
import type { StoredBody } from '../contracts/stored-body';

/** A body as read from the store, or why it could not be read. */
export type BodyRead = { body: StoredBody } | { missing: string };

const textOfBlocks = (content: string | { type: string; text?: string }[]): string =>
  typeof content === 'string'
    ? content
    : content
        .map((b) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`))
        .filter((t) => t !== '')
        .join('\n');

/** The message at log position `seq`, from its stored body. */
export function runMessageOf(seq: number, kind: AgentMessageKind, body: StoredBody): RunMessage {
  switch (body.role) {
    case 'user':
      return {
        role: 'user',
        seq,
        ...(body.origin ? { origin: body.origin } : seq === 0 ? { origin: 'task' as const } : {}),
        ...(body.agentRole ? { agentRole: body.agentRole } : {}),
        text: textOfBlocks(body.content),
        timestamp: body.timestamp,
      };
    case 'assistant':
      return {
        role: 'assistant',
        seq,
        ...(body.agentRole ? { agentRole: body.agentRole } : {}),
        model: `${body.provider}/${body.model}`,
        stopReason: body.stopReason,
        ...(body.usage ? { usage: body.usage } : {}),
        text: body.content
          .flatMap((b) => (b.type === 'text' ? [b.text] : []))
          .join('\n')
          .trim(),
        thinking: body.content.flatMap((b) => (b.type === 'thinking' && !b.redacted ? [b.thinking] : [])),
        toolCalls: body.content.flatMap((b) =>
          b.type === 'tool_call' ? [{ id: b.id, name: b.name, arguments: b.arguments }] : [],
        ),
        timestamp: body.timestamp,
      };
    case 'tool_result':
      return {
        role: 'tool_result',
        seq,
        toolCallId: body.toolCallId,
        toolName: body.toolName,
        isError: body.isError,
        text: textOfBlocks(body.content),
        timestamp: body.timestamp,
      };
    default:
      return {
        role: 'note',
        seq,
        kind,
        text: body.text,
        timestamp: body.timestamp,
        ...('childRun' in body && body.childRun ? { childRun: body.childRun } : {}),
        ...('toolCallId' in body && body.toolCallId ? { toolCallId: body.toolCallId } : {}),
      };
  }
}

/**
 * The conversation's messages. `bodies` holds one read per log entry, in order, and `summaries`
 * one per recorded summary.
 */
export function runMessages(
  log: ConversationLog,
  bodies: readonly BodyRead[],
  summaryBodies: readonly BodyRead[],
): RunMessage[] {
  const summaries = log.summaries.map((s, i) => ({ ...s, read: summaryBodies[i] }));
  const items: RunMessage[] = [];
  const placeSummaries = (beforeSeq: number) => {
    while (summaries.length > 0 && summaries[0].toSeq <= beforeSeq) {
      const { fromSeq, toSeq, read } = summaries.shift()!;
      const body = read && 'body' in read ? read.body : undefined;
      const text = read && 'missing' in read ? read.missing : body?.role === 'summary' ? body.text : '';
      items.push({ role: 'summary', fromSeq, toSeq, text, ...(body?.timestamp ? { timestamp: body.timestamp } : {}) });
    }
  };
  let expected = 0;
  log.entries.forEach((entry, i) => {
    for (; expected < entry.seq; expected++) {
      placeSummaries(expected);
      items.push({ role: 'missing', seq: expected, reason: 'nothing stored at this position' });
    }
    placeSummaries(entry.seq);
    const read = bodies[i];
    items.push(
      'body' in read
        ? runMessageOf(entry.seq, entry.kind, read.body)
        : { role: 'missing', seq: entry.seq, reason: read.missing },
    );
    expected = entry.seq + 1;
  });
  placeSummaries(Number.MAX_SAFE_INTEGER);
  return items;
}
