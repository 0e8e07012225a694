/** How the `transcript` command prints a run's messages ({@link readRunMessages} reads them). */
import type { ChildConversation } from '../client/run-messages';
import type { RunMessage } from '../contracts/run-message';

const indent = (text: string, prefix = '   '): string => text.replace(/\n/g, `\n${prefix}`);

/** A child's conversation, indented under the call or note that started it. */
function childBlock(child: ChildConversation): string[] {
  const body = formatTranscript(child.messages, child.children);
  return [`   -- child run ${child.id} --`, ...body.split('\n').map((line) => `      ${line}`), '   --'];
}

/**
 * One readable block per message; with `children` (`transcript --children`), each child run's
 * conversation under the call that started it, or under the note that names it.
 */
export function formatTranscript(items: readonly RunMessage[], children: readonly ChildConversation[] = []): string {
  const lines: string[] = [];
  const under = (key: { toolCallId?: string; noteSeq?: number }) =>
    children
      .filter((c) => (key.toolCallId !== undefined ? c.toolCallId === key.toolCallId : c.noteSeq === key.noteSeq))
      .flatMap(childBlock);
  for (const item of items) {
    switch (item.role) {
      case 'user':
        lines.push(
          `#${item.seq} user${item.origin ? ` (${item.origin.replace('_', '-')})` : ''}` +
            `${item.agentRole ? ` to ${item.agentRole}` : ''}: ${indent(item.text)}`,
        );
        break;
      case 'assistant':
        lines.push(
          `#${item.seq} ${item.agentRole ?? 'assistant'}${item.model ? ` [${item.model}]` : ''}:` +
            `${item.text ? ` ${indent(item.text)}` : ''}`,
        );
        for (const t of item.thinking) lines.push(`   thinking: ${indent(t, '     ')}`);
        for (const c of item.toolCalls)
          lines.push(`   calls ${c.name}(${JSON.stringify(c.arguments)}) [${c.id}]`, ...under({ toolCallId: c.id }));
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
        lines.push(
          `#${item.seq} ${item.kind}${item.toolCallId ? ` [${item.toolCallId}]` : ''}: ${indent(item.text)}`,
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
