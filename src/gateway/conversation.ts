/**
 * A conversation a protocol request brings, as the start of a run: its last message, a user's, is
 * the task, and the messages before it are what the run starts from (`session.initialMessages`), so
 * nothing a client sends is dropped. Messages of one role in a row are one message (their texts
 * apart by a blank line), as providers take a conversation only when its roles alternate.
 */
import type { InitialMessage } from '../contracts/run-spec';

/** One message of the conversation, as text. */
export interface Said {
  role: 'user' | 'assistant';
  text: string;
}

export type ConversationStart = { task: string; history?: InitialMessage[] } | { problem: string };

export function conversationStart(messages: readonly Said[]): ConversationStart {
  const said: Said[] = [];
  for (const one of messages) {
    const previous = said.at(-1);
    if (previous?.role === one.role) previous.text = `${previous.text}\n\n${one.text}`;
    else said.push({ ...one });
  }
  const task = said.pop();
  if (task?.role !== 'user') return { problem: `the last message must be a user's: it is the task` };
  if (said[0]?.role === 'assistant') return { problem: 'the conversation must begin with a user message' };
  const history = said.map(({ role, text }): InitialMessage => ({ role, content: text }));
  return { task: task.text, ...(history.length ? { history } : {}) };
}
