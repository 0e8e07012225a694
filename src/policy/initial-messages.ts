/**
 * A conversation an application gives a run to start from (`session.initialMessages`): the one
 * check of its messages, run by the client before a start and by the activity that writes them,
 * and the bodies the log holds for them. Providers take a conversation only when it begins with a
 * user message, user and assistant messages alternate, and every tool call is answered by a
 * result right after the answer that made it; the run's task comes after the given messages.
 */
import { isPlainObject } from '../common/type-helpers';
import type { CopyConversationInput } from '../contracts/agent-activities';
import { emptyCost, emptyUsage, type TextBlock } from '../contracts/message-model';
import type { LoggedBody, StoredBody } from '../contracts/stored-body';
import type { AgentConfig, InitialMessage } from '../contracts/run-spec';

/** The provider and model a given assistant message names: no model of the run wrote it. */
export const GIVEN_MESSAGES_MODEL = { provider: 'given', model: 'initial-messages' } as const;

/** Problems shown at most, so a long broken conversation still gives a short refusal. */
const MAX_PROBLEMS = 5;

const BLOCK_TYPES: Record<InitialMessage['role'], readonly string[]> = {
  user: ['text', 'image'],
  assistant: ['text', 'thinking', 'tool_call'],
  tool_result: ['text', 'image'],
};

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** What is wrong with one content block of a `role` message, if anything. */
function blockProblem(block: unknown, role: InitialMessage['role']): string | undefined {
  if (!isPlainObject(block) || !BLOCK_TYPES[role].includes(String(block.type)))
    return `has a block that is not one of ${BLOCK_TYPES[role].join(', ')}`;
  if (block.type === 'text') return nonEmpty(block.text) ? undefined : 'has an empty text block';
  if (block.type === 'thinking')
    return typeof block.thinking === 'string' ? undefined : 'has a thinking block without text';
  if (block.type === 'image')
    return nonEmpty(block.mediaType) && nonEmpty(block.data) ? undefined : 'has an image without mediaType and data';
  if (!nonEmpty(block.id) || !nonEmpty(block.name) || !isPlainObject(block.arguments))
    return 'has a tool_call without an id, a name and an arguments object';
  return undefined;
}

/** What is wrong with one message taken alone, if anything. */
function messageProblem(message: unknown): string | undefined {
  if (!isPlainObject(message) || !['user', 'assistant', 'tool_result'].includes(String(message.role)))
    return 'is not a user, assistant or tool_result message';
  const role = message.role as InitialMessage['role'];
  if (role === 'tool_result' && !(nonEmpty(message.toolCallId) && nonEmpty(message.toolName)))
    return 'is a tool_result without toolCallId and toolName';
  if (role === 'tool_result' && message.isError !== undefined && typeof message.isError !== 'boolean')
    return 'has an isError that is not true or false';
  const { content } = message;
  if (typeof content === 'string') return content.trim() === '' ? `(${role}) has empty content` : undefined;
  if (!Array.isArray(content) || content.length === 0) return `(${role}) has empty content`;
  const problem = content.map((block) => blockProblem(block, role)).find((p) => p !== undefined);
  return problem && `(${role}) ${problem}`;
}

const toolCallIds = (message: InitialMessage): string[] =>
  message.role === 'assistant' && Array.isArray(message.content)
    ? message.content.flatMap((b) => (b.type === 'tool_call' ? [b.id] : []))
    : [];

/** The first problem with the order of well-formed messages: who may follow whom, and which calls are answered. */
function orderProblem(messages: readonly InitialMessage[]): string | undefined {
  if (messages[0].role !== 'user') return 'initialMessages[0] must be a user message: a conversation begins with one';
  let open: string[] = [];
  let openAt = 0;
  for (let i = 1; i < messages.length; i++) {
    const message = messages[i];
    const previous = messages[i - 1].role;
    if (message.role === 'tool_result') {
      if (!open.includes(message.toolCallId))
        return (
          `initialMessages[${i}] answers tool call "${message.toolCallId}", ` +
          'which the answer before it did not make or was answered already'
        );
      open = open.filter((id) => id !== message.toolCallId);
      continue;
    }
    if (open.length > 0)
      return (
        `initialMessages[${i}] comes before the results of tool calls ${open.join(', ')} ` +
        `of initialMessages[${openAt}]`
      );
    if (message.role === previous)
      return `initialMessages[${i}] is a second ${previous} message in a row: user and assistant messages alternate`;
    open = toolCallIds(message);
    openAt = i;
  }
  if (open.length > 0) return `tool calls ${open.join(', ')} of initialMessages[${openAt}] have no results`;
  if (messages[messages.length - 1].role === 'user')
    return 'initialMessages end with a user message and the task comes next: give that message as the task';
  return undefined;
}

/** Problems with the messages a run is given to start from, one line each; empty when a provider takes them. */
export function initialMessageProblems(given: unknown): string[] {
  if (isPlainObject(given)) return nonEmpty(given.hash) ? [] : ['initialMessages by reference need the hash'];
  if (!Array.isArray(given)) return ['initialMessages must be an array of messages'];
  if (given.length === 0) return ['initialMessages is empty: give at least one message, or none at all'];
  const problems = given.flatMap((message, i) => {
    const problem = messageProblem(message);
    return problem ? [`initialMessages[${i}] ${problem}`] : [];
  });
  // One line in place of a single problem would say less than the problem.
  if (problems.length > MAX_PROBLEMS + 1)
    return [
      ...problems.slice(0, MAX_PROBLEMS),
      `and ${problems.length - MAX_PROBLEMS} more problems with initialMessages`,
    ];
  if (problems.length > 0) return problems;
  const order = orderProblem(given as InitialMessage[]);
  return order ? [order] : [];
}

/** Whether the run's conversation begins with messages of its own before the task (another run's or given ones). */
export const opensOnMessages = (spec: Pick<AgentConfig, 'session'>): boolean =>
  Boolean(spec.session?.from ?? spec.session?.initialMessages);

/** The given messages as the log keeps them, stamped `timestamp`. */
export function initialBodies(messages: readonly InitialMessage[], timestamp: number): LoggedBody[] {
  return messages.map((message): LoggedBody => {
    const blocks = <T>(content: string | T[]): (T | TextBlock)[] =>
      typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    let body: StoredBody;
    if (message.role === 'user') body = { role: 'user', content: message.content, timestamp };
    else if (message.role === 'tool_result')
      body = {
        role: 'tool_result',
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        content: blocks(message.content),
        isError: message.isError ?? false,
        timestamp,
      };
    else
      body = {
        role: 'assistant',
        content: blocks(message.content),
        ...GIVEN_MESSAGES_MODEL,
        usage: emptyUsage(),
        cost: emptyCost(),
        stopReason: toolCallIds(message).length > 0 ? 'tool_use' : 'stop',
        timestamp,
      };
    return { kind: message.role, body };
  });
}

/** What opens the run's conversation before its task, if anything does: another run's, or the given messages. */
export function openingInput(spec: Pick<AgentConfig, 'session'>, to: string): CopyConversationInput | undefined {
  const { from, initialMessages } = spec.session ?? {};
  if (initialMessages) return { to, given: initialMessages };
  if (!from) return undefined;
  return { from: from.conversationId, to, ...(from.atTurn !== undefined ? { atTurn: from.atTurn } : {}) };
}
