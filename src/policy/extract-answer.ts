/**
 * `extract(schema, text | messages)`: a typed value from a model's answer. The JSON object is
 * found as pev's answers are read (`extractJsonObject`: code fences stripped, prose around it
 * skipped, a truncated or slightly broken object repaired), or the JSON array when the answer's
 * root is one (the same way), then validated with the zod schema.
 */
import type { z } from 'zod';
import type { RunMessage } from '../contracts/run-message';
import { extractJsonArray, extractJsonObject, type ExtractMethod } from './extract-json';
import { describeIssue } from './pev/parse-answer';

/** The answer had no usable JSON object or array, or its value does not match the schema. */
export class ExtractError extends Error {
  override name = 'ExtractError';
  constructor(
    message: string,
    /** One line per problem: `path: what is wrong`, or why no object was found. */
    readonly problems: string[],
    /** The text that was read. */
    readonly text: string,
  ) {
    super(message);
  }
}

/** Most schema problems listed in an error's message. */
const LISTED = 12;

/** The text of the last assistant message that has any. */
function lastAnswer(messages: readonly RunMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'assistant' && m.text.trim()) return m.text;
  }
  throw new ExtractError('no assistant message with text to extract from', ['no assistant message with text'], '');
}

/**
 * The answer's JSON when its root is an array: one that starts before any object does. A schema
 * of an object then refuses it, rather than reading the array's first element.
 */
function rootArray(text: string): { ok: true; value: unknown; method: ExtractMethod } | undefined {
  const arrayAt = text.indexOf('[');
  const objectAt = text.indexOf('{');
  if (arrayAt < 0 || (objectAt >= 0 && objectAt < arrayAt)) return undefined;
  const found = extractJsonArray(text);
  return found && { ok: true, ...found };
}

/** A value of `schema` and how its JSON was found (`repaired` when the text needed mending). */
export function extractWithMethod<S extends z.ZodType>(
  schema: S,
  source: string | readonly RunMessage[],
): { value: z.output<S>; method: ExtractMethod } {
  const text = typeof source === 'string' ? source : lastAnswer(source);
  const found = rootArray(text) ?? extractJsonObject(text);
  if (!found.ok) throw new ExtractError(`cannot extract a value: ${found.reason}`, [found.reason], text);
  const checked = schema.safeParse(found.value);
  if (!checked.success) {
    const problems = checked.error.issues.map(describeIssue);
    const listed = problems.slice(0, LISTED).join('; ');
    const more = problems.length > LISTED ? `; and ${problems.length - LISTED} more` : '';
    throw new ExtractError(`the answer's JSON does not match the schema: ${listed}${more}`, problems, text);
  }
  return { value: checked.data, method: found.method };
}

/**
 * The value of `schema` in a model's text, or in the last assistant message of `messages` (as
 * `AgentClient.messages` gives them). Throws an {@link ExtractError} listing what failed.
 */
export function extract<S extends z.ZodType>(schema: S, source: string | readonly RunMessage[]): z.output<S> {
  return extractWithMethod(schema, source).value;
}
