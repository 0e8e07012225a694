/**
 * A Responses `input` as the start of a run: a text is the task, a list of messages a conversation
 * (conversation.ts). What a published agent cannot take is refused by name: system and developer
 * messages (an agent's instructions are its own), items other than messages (the agent's tools are
 * its own), and parts other than text.
 */
import { conversationStart, type ConversationStart, type Said } from './conversation';

/** The part types whose text a message of each role gives. */
const TEXT_PARTS: Record<Said['role'], readonly string[]> = {
  user: ['input_text'],
  assistant: ['output_text'],
};

/** One input item as a message, or what is wrong with it. */
function saidOf(item: unknown, at: string): Said | { problem: string } {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return { problem: `${at} is not a message` };
  const { type, role, content } = item as { type?: unknown; role?: unknown; content?: unknown };
  if (type !== undefined && type !== 'message')
    return { problem: `${at} is a ${String(type)} item: only messages are taken (the agent's tools are its own)` };
  if (role === 'system' || role === 'developer')
    return { problem: `${at} is a ${role} message: the agent's instructions are its own` };
  if (role !== 'user' && role !== 'assistant') return { problem: `${at} is not a user or assistant message` };
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    const texts: string[] = [];
    for (const part of content as { type?: unknown; text?: unknown }[]) {
      if (!TEXT_PARTS[role].includes(String(part?.type)) || typeof part.text !== 'string')
        return { problem: `${at} has a ${String(part?.type)} part: only ${TEXT_PARTS[role][0]} parts are taken` };
      texts.push(part.text);
    }
    text = texts.join('\n\n');
  } else return { problem: `${at} has no content` };
  return text.trim() ? { role, text } : { problem: `${at} has no text` };
}

export function responsesInput(input: unknown): ConversationStart {
  if (typeof input === 'string') return input.trim() ? { task: input } : { problem: 'input is empty' };
  if (!Array.isArray(input) || input.length === 0) return { problem: 'input must be a text or a list of messages' };
  const said: Said[] = [];
  for (const [i, item] of input.entries()) {
    const one = saidOf(item, `input[${i}]`);
    if ('problem' in one) return one;
    said.push(one);
  }
  const start = conversationStart(said);
  return 'problem' in start ? { problem: `input: ${start.problem}` } : start;
}
