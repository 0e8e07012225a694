/** How the `transcript` command prints a run's messages ({@link readRunMessages} reads them). */
import type { RunMessage } from '../contracts/run-message';

const indent = (text: string, prefix = '   '): string => text.replace(/\n/g, `\n${prefix}`);

/** One readable block per message. */
export function formatTranscript(items: readonly RunMessage[]): string {
  const lines: string[] = [];
  for (const item of items) {
    switch (item.role) {
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
