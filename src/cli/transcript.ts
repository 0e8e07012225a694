/** How the `transcript` command prints a run's messages ({@link readRunMessages} reads them). */
import type { ChildConversation } from '../client/run-messages';
import type { RunMessage } from '../contracts/run-message';

const indent = (text: string, prefix = '   '): string => text.replace(/\n/g, `\n${prefix}`);

/** What `transcript` prints of one message's text by default (`--max-chars`). */
export const TRANSCRIPT_MAX_CHARS = 2_000;

/** A text cut to `max` characters (0: whole), with a note of what was cut and how to see it all. */
function within(text: string, max: number): string {
  if (max === 0 || text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} of ${text.length} characters cut: --max-chars 0 prints them]`;
}

/** A child's conversation, indented under the call or note that started it. */
function childBlock(child: ChildConversation, maxChars: number): string[] {
  const body = formatTranscript(child.messages, child.children, maxChars);
  return [`   -- child run ${child.id} --`, ...body.split('\n').map((line) => `      ${line}`), '   --'];
}

/**
 * One readable block per message; with `children` (`transcript --children`), each child run's
 * conversation under the call that started it, or under the note that names it. Each text (and
 * thinking, and a call's arguments) is cut to `maxChars` characters, with a note of what was cut; 0 cuts nothing.
 */
export function formatTranscript(
  items: readonly RunMessage[],
  children: readonly ChildConversation[] = [],
  maxChars = TRANSCRIPT_MAX_CHARS,
): string {
  const lines: string[] = [];
  const under = (key: { toolCallId?: string; noteSeq?: number }) =>
    children
      .filter((c) => (key.toolCallId !== undefined ? c.toolCallId === key.toolCallId : c.noteSeq === key.noteSeq))
      .flatMap((c) => childBlock(c, maxChars));
  const cut = (text: string) => within(text, maxChars);
  for (const item of items) {
    switch (item.role) {
      case 'user':
        lines.push(
          `#${item.seq} user${item.origin ? ` (${item.origin.replace('_', '-')})` : ''}` +
            `${item.agentRole ? ` to ${item.agentRole}` : ''}: ${indent(cut(item.text))}`,
        );
        break;
      case 'assistant':
        lines.push(
          `#${item.seq} ${item.agentRole ?? 'assistant'}${item.model ? ` [${item.model}]` : ''}:` +
            `${item.text ? ` ${indent(cut(item.text))}` : ''}`,
        );
        for (const t of item.thinking) lines.push(`   thinking: ${indent(cut(t), '     ')}`);
        for (const c of item.toolCalls)
          lines.push(
            `   calls ${c.name}(${cut(JSON.stringify(c.arguments))}) [${c.id}]`,
            ...under({ toolCallId: c.id }),
          );
        break;
      case 'tool_result':
        lines.push(
          `#${item.seq} tool ${item.toolName} [${item.toolCallId}]${item.isError ? ' ERROR' : ''}: ` +
            indent(cut(item.text)),
        );
        break;
      case 'summary':
        lines.push(
          `-- summary of #${item.fromSeq}..#${item.toSeq - 1} (the model saw this instead) --`,
          cut(item.text),
          '--',
        );
        break;
      case 'note':
        lines.push(
          `#${item.seq} ${item.kind}${item.toolCallId ? ` [${item.toolCallId}]` : ''}: ${indent(cut(item.text))}`,
          ...under({ noteSeq: item.seq }),
        );
        break;
      case 'missing':
        lines.push(`#${item.seq} (${item.reason})`);
        break;
    }
  }
  return lines.join('\n');
}
