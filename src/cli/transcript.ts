/**
 * A run's conversation as the store has it, in log order and across continue-as-new: what the
 * `transcript` command prints. Built from the log and the bodies only, so it works after Temporal
 * has dropped the run's history.
 */
import type { UserOrigin } from '../contracts/agent-activities';
import type { AgentMessageKind } from '../contracts/agent-run';
import type { StoredBody } from '../contracts/stored-body';
import type { ContentStore } from '../store';

export type TranscriptItem =
  | { type: 'user'; seq: number; origin?: UserOrigin; text: string; timestamp?: number }
  | {
      type: 'assistant';
      seq: number;
      model?: string;
      stopReason?: string;
      text: string;
      thinking: string[];
      toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[];
      timestamp?: number;
    }
  | {
      type: 'tool_result';
      seq: number;
      toolCallId: string;
      toolName: string;
      isError: boolean;
      text: string;
      timestamp?: number;
    }
  | { type: 'summary'; fromSeq: number; toSeq: number; text: string; timestamp?: number }
  | { type: 'note'; seq: number; kind: AgentMessageKind; text: string; timestamp?: number }
  | { type: 'missing'; seq: number; reason: string };

const textOfBlocks = (content: string | { type: string; text?: string }[]): string =>
  typeof content === 'string'
    ? content
    : content
        .map((b) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`))
        .filter((t) => t !== '')
        .join('\n');

function itemOf(seq: number, kind: AgentMessageKind, body: StoredBody): TranscriptItem {
  switch (body.role) {
    case 'user':
      return {
        type: 'user',
        seq,
        ...(body.origin ? { origin: body.origin } : seq === 0 ? { origin: 'task' as const } : {}),
        text: textOfBlocks(body.content),
        timestamp: body.timestamp,
      };
    case 'assistant':
      return {
        type: 'assistant',
        seq,
        model: `${body.provider}/${body.model}`,
        stopReason: body.stopReason,
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
        type: 'tool_result',
        seq,
        toolCallId: body.toolCallId,
        toolName: body.toolName,
        isError: body.isError,
        text: textOfBlocks(body.content),
        timestamp: body.timestamp,
      };
    default:
      return { type: 'note', seq, kind, text: body.text, timestamp: body.timestamp };
  }
}

/** The conversation `id` as transcript items; an empty list when the store has nothing of it. */
export async function buildTranscript(store: ContentStore, id: string): Promise<TranscriptItem[]> {
  const log = await store.readLog(id);
  const load = async (hash: string): Promise<StoredBody | string> =>
    store.get<StoredBody>(hash).then(
      (body) => body,
      (err: Error) => `body ${hash} could not be read: ${err.message}`,
    );
  const bodies = await Promise.all(log.entries.map((e) => load(e.hash)));
  const summaries = await Promise.all(log.summaries.map(async (s) => ({ ...s, body: await load(s.hash) })));
  const items: TranscriptItem[] = [];
  const placeSummaries = (beforeSeq: number) => {
    while (summaries.length > 0 && summaries[0].toSeq <= beforeSeq) {
      const s = summaries.shift()!;
      const text = typeof s.body === 'string' ? s.body : s.body.role === 'summary' ? s.body.text : '';
      const timestamp = typeof s.body === 'string' ? undefined : s.body.timestamp;
      items.push({ type: 'summary', fromSeq: s.fromSeq, toSeq: s.toSeq, text, ...(timestamp ? { timestamp } : {}) });
    }
  };
  let expected = 0;
  log.entries.forEach((entry, i) => {
    for (; expected < entry.seq; expected++) {
      placeSummaries(expected);
      items.push({ type: 'missing', seq: expected, reason: 'nothing stored at this position' });
    }
    placeSummaries(entry.seq);
    const body = bodies[i];
    items.push(
      typeof body === 'string'
        ? { type: 'missing', seq: entry.seq, reason: body }
        : itemOf(entry.seq, entry.kind, body),
    );
    expected = entry.seq + 1;
  });
  placeSummaries(Number.MAX_SAFE_INTEGER);
  return items;
}

const indent = (text: string, prefix = '   '): string => text.replace(/\n/g, `\n${prefix}`);

/** One readable block per item. */
export function formatTranscript(items: readonly TranscriptItem[]): string {
  const lines: string[] = [];
  for (const item of items) {
    switch (item.type) {
      case 'user':
        lines.push(
          `#${item.seq} user${item.origin ? ` (${item.origin.replace('_', '-')})` : ''}: ${indent(item.text)}`,
        );
        break;
      case 'assistant':
        lines.push(
          `#${item.seq} assistant${item.model ? ` [${item.model}]` : ''}:${item.text ? ` ${indent(item.text)}` : ''}`,
        );
        for (const t of item.thinking) lines.push(`   thinking: ${indent(t, '     ')}`);
        for (const c of item.toolCalls) lines.push(`   calls ${c.name}(${JSON.stringify(c.arguments)}) [${c.id}]`);
        break;
      case 'tool_result':
        lines.push(
          `#${item.seq} tool ${item.toolName} [${item.toolCallId}]${item.isError ? ' ERROR' : ''}: ` +
            indent(item.text),
        );
        break;
      case 'summary':
        lines.push(
          `-- summary of #${item.fromSeq}..#${item.toSeq - 1} (the model saw this instead) --`,
          item.text,
          '--',
        );
        break;
      case 'note':
        lines.push(`#${item.seq} ${item.kind}: ${indent(item.text)}`);
        break;
      case 'missing':
        lines.push(`#${item.seq} (${item.reason})`);
        break;
    }
  }
  return lines.join('\n');
}
