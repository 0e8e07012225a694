/**
 * Checks a request locally before any HTTP call, so a conversation bug fails with a message that
 * names the message and tool call at fault instead of a provider's 400 (and costs no request).
 * Mirrors the rules both APIs enforce.
 */
import type { ModelRequest } from '../contracts/message-model';
import { TOOL_NAME } from '../policy/tool-selection';

/** Returns the problems found; empty when the request is well formed. */
export function requestProblems(request: ModelRequest): string[] {
  const problems: string[] = [];
  const options = request.options ?? {};
  if (!Array.isArray(request.messages) || request.messages.length === 0)
    return ['messages: at least one message is required'];

  const names = new Set<string>();
  for (const tool of options.tools ?? []) {
    if (!TOOL_NAME.test(tool.name)) problems.push(`tools: name "${tool.name}" must match ${TOOL_NAME.source}`);
    if (names.has(tool.name)) problems.push(`tools: name "${tool.name}" is declared twice`);
    names.add(tool.name);
  }
  const choice = options.toolChoice;
  if (typeof choice === 'object' && !names.has(choice.name))
    problems.push(`toolChoice: tool "${choice.name}" is not among options.tools`);
  if (choice === 'required' && names.size === 0)
    problems.push('toolChoice: "required" needs at least one tool in options.tools');
  if (options.maxTokens !== undefined && !(Number.isInteger(options.maxTokens) && options.maxTokens > 0)) {
    problems.push(`maxTokens: expected a positive integer, got ${String(options.maxTokens)}`);
  }

  let open: string[] = [];
  let openAt = -1;
  request.messages.forEach((message, i) => {
    if (message.role === 'tool_result') {
      if (!open.includes(message.toolCallId)) {
        problems.push(
          `messages[${i}]: tool result for "${message.toolCallId}" does not answer a call of the assistant ` +
            `message just before it`,
        );
      }
      open = open.filter((id) => id !== message.toolCallId);
      return;
    }
    if (open.length)
      problems.push(`messages[${openAt}]: tool calls ${open.join(', ')} have no result before messages[${i}]`);
    open = [];
    if (message.role === 'assistant') {
      open = message.content.flatMap((b) => (b.type === 'tool_call' ? [b.id] : []));
      openAt = i;
    }
  });
  if (open.length)
    problems.push(
      `messages[${openAt}]: tool calls ${open.join(', ')} have no result (every call needs one, even a ` +
        `skipped or failed call)`,
    );
  return problems;
}
