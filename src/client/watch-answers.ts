/**
 * `watch(id, { answers: true })`: beside the run's events and tokens, the structured answers the
 * tokens spell, as values that fill in while they stream and then whole. Structured are the
 * answers its kind names a role for in the run's phase (`KindFacts.answerRoles`) and every text
 * answer of a run with a JSON response format.
 */
import type { Client } from '@temporalio/client';
import type { AgentEvent } from '../contracts/agent-events';
import type { ConversationReader } from '../contracts/conversation-log';
import type { StoredBody } from '../contracts/stored-body';
import { EVENTS_TOPIC, TOKENS_TOPIC, type TokenDelta, type WatchItem } from '../contracts/watch-topics';
import { AnswerStream, answersInJson, looksStructured, type AnswerRole } from '../policy/answer-stream';
import type { KindRegistry } from '../kinds';
import { startInput } from './run-reads';

export type { AnswerRole } from '../policy/answer-stream';

/** Every field optional, at every depth: what a structured answer has shown so far. */
export type DeepPartial<T> = T extends (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/** The topic of {@link AnswerItem}s: the client makes them, the run publishes none. */
export const ANSWERS_TOPIC = 'answers';

/**
 * A structured answer of the run: partial while it streams (each change of what its text parses
 * to), then once `complete` when the answer ends, read whole (from the content store when the
 * client has one, so pieces a watch missed are in it). `T` is the shape the caller expects; the
 * value is not validated (`extract` validates one with a schema).
 */
export type AnswerItem<T = Record<string, unknown>> = {
  topic: typeof ANSWERS_TOPIC;
  /** Offset of the stream item that gave this value (the last token piece, or the event that ended the answer). */
  offset: number;
  /** The answer's position in the conversation (its assistant message's `seq`). */
  seq: number;
  /** The model call's attempt: a retried call streams its answer again under the next number. */
  attempt: number;
  role: AnswerRole;
} & ({ complete: false; value: DeepPartial<T> } | { complete: true; value: T });

/** How a run structures its answers, from the config it started with. */
interface AnswerShape {
  /** Its kind's role for the answers of a phase, when its kind names roles. */
  roleOf?: (phase: string) => AnswerRole | undefined;
  json: boolean;
}

/** Which of the run's answers are structured; nothing when its start input cannot be read. */
export async function answerShapeOf(client: Client, id: string, kinds: KindRegistry): Promise<AnswerShape> {
  const input = await startInput(client, id).catch(() => undefined);
  if (!input) return { json: false };
  const edge = kinds.find(input.config.kind);
  return {
    ...(edge?.facts.answerRoles ? { roleOf: (phase: string) => edge.facts.answerRoles?.[phase] } : {}),
    json: answersInJson(input.config),
  };
}

/** The whole text of the answer at `seq`, from the store; undefined when it cannot be read. */
async function storedText(store: ConversationReader, id: string, seq: number): Promise<string | undefined> {
  try {
    const entry = (await store.readLog(id)).entries.find((e) => e.seq === seq);
    const body = entry && (await store.get<StoredBody>(entry.hash));
    if (body?.role !== 'assistant') return undefined;
    return body.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  } catch {
    return undefined;
  }
}

interface OpenAnswer {
  key: string;
  delta: TokenDelta;
  /** Token-stream cursor of its last piece. */
  cursor: number;
  role: AnswerRole;
  stream: AnswerStream;
  /** The text turned out not to be JSON: its pieces stay plain tokens. */
  plain: boolean;
}

/**
 * The watch's items with the text pieces of structured answers replaced by {@link AnswerItem}s: one
 * for each change of what the text parses to, and a `complete` one when the answer ends. An answer
 * that turns out not to be JSON comes as plain token pieces (its swallowed start as one piece).
 */
export async function* withAnswers<T>(
  items: AsyncGenerator<WatchItem, void, undefined>,
  reads: { shape: () => Promise<AnswerShape>; id: string; store?: ConversationReader },
): AsyncGenerator<WatchItem | AnswerItem<T>, void, undefined> {
  const shape = await reads.shape();
  let phaseRole: AnswerRole | undefined;
  let open: OpenAnswer | undefined;

  /** What ends the open answer: its whole value, or its text as tokens when it is not JSON. */
  const close = async (
    offset: number,
    done?: Extract<AgentEvent, { type: 'done' }>,
  ): Promise<WatchItem | AnswerItem<T> | undefined> => {
    const answer = open;
    open = undefined;
    if (!answer || answer.plain || answer.stream.text.trim() === '') return undefined;
    const whole =
      (reads.store && (await storedText(reads.store, reads.id, answer.delta.seq))) ??
      // A run that ends right after its last pieces can end the watch before them: `done` has its text.
      (answer.role === 'answer' && done?.finalText.startsWith(answer.stream.text.trim()) ? done.finalText : undefined);
    const read = answer.stream.complete(whole);
    const { seq, attempt } = answer.delta;
    if (read.ok)
      return { topic: ANSWERS_TOPIC, offset, seq, attempt, role: answer.role, complete: true, value: read.value as T };
    const text = whole ?? answer.stream.text;
    return { topic: TOKENS_TOPIC, offset, cursor: answer.cursor, delta: { ...answer.delta, text } };
  };

  let last = -1;
  for await (const item of items) {
    if (item.topic === EVENTS_TOPIC) {
      const closed = await close(last, item.event.type === 'done' ? item.event : undefined);
      if (closed) yield closed;
      if (item.event.type === 'phase') phaseRole = shape.roleOf?.(item.event.phase);
      last = item.offset;
      yield item;
      continue;
    }
    const { delta } = item;
    const role = delta.kind !== 'text' ? undefined : shape.roleOf ? phaseRole : shape.json ? 'answer' : undefined;
    if (!role) {
      last = item.offset;
      yield item;
      continue;
    }
    const key = `${delta.seq}:${delta.attempt}:${delta.model}`;
    if (open?.key !== key) {
      const closed = await close(last);
      if (closed) yield closed;
      open = { key, delta, cursor: item.cursor, role, stream: new AnswerStream(), plain: false };
    }
    open.cursor = item.cursor;
    last = item.offset;
    if (!open.plain && open.stream.text.trim() === '' && delta.text.trim() !== '')
      open.plain = !looksStructured(open.stream.text + delta.text);
    if (open.plain) {
      yield item;
      continue;
    }
    if (open.stream.push(delta.text) && open.stream.value)
      yield {
        topic: ANSWERS_TOPIC,
        offset: item.offset,
        seq: delta.seq,
        attempt: delta.attempt,
        role,
        complete: false,
        value: open.stream.value as DeepPartial<T>,
      };
  }
  const closed = await close(last);
  if (closed) yield closed;
}
