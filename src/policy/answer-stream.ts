/**
 * A structured answer (a JSON object, perhaps fenced) read while it streams: the object its text
 * parses to so far, with a partial-JSON parser that keeps only what it has whole (a string may
 * still grow at its end; a number, `true` or `null` shows once complete). The whole answer is
 * read with the tolerant extraction pev's answers use (`extractJsonObject`).
 */
import { Allow, parse } from 'partial-json';
import type { AgentConfig } from '../contracts/run-spec';
import { extractJsonObject, type ExtractResult } from './extract-json';
import { isPlainObject } from '../common/type-helpers';

export type { AnswerRole } from '../contracts/kind-facts';

/** Whether a run's text answers are structured by its own config: a JSON response format. */
export function answersInJson(config: Pick<AgentConfig, 'call'>): boolean {
  const type = config.call.responseFormat?.type;
  return type === 'json' || type === 'json_schema';
}

/** Whether text that starts like this is a structured answer (JSON, perhaps fenced). */
export function looksStructured(text: string): boolean {
  const start = text.trimStart();
  return start.startsWith('{') || start.startsWith('```');
}

/** The object the text of a streaming answer parses to so far; undefined before its first `{`. */
function partialObject(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  try {
    const parsed: unknown = parse(text.slice(start), Allow.STR | Allow.ARR | Allow.OBJ);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** One streaming answer: its text so far and the newest object it parses to. */
export class AnswerStream {
  private received = '';
  /** The newest object the text parses to. */
  value?: Record<string, unknown>;
  private shown = '';

  /** The text received so far. */
  get text(): string {
    return this.received;
  }

  /** Adds a piece of text; returns true when the parsed object changed. */
  push(piece: string): boolean {
    this.received += piece;
    const parsed = partialObject(this.received);
    if (!parsed) return false;
    const key = JSON.stringify(parsed);
    if (key === this.shown) return false;
    this.value = parsed;
    this.shown = key;
    return true;
  }

  /** The whole answer read from `text` (default: what was received), code fences and a cut tail repaired. */
  complete(text: string = this.received): ExtractResult {
    return extractJsonObject(text);
  }
}
