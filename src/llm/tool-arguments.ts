/**
 * Parsing of tool-call argument JSON as models emit it. Repairs only what cannot change the
 * meaning (quotes, trailing commas, comments, code fences, Python literals); JSON that was cut
 * off is never completed, because a completed guess would run a tool with arguments the model
 * never wrote.
 */
import { jsonrepair } from 'jsonrepair';
import { isPlainObject } from '../common/type-helpers';
import type { ToolCallBlock } from '../contracts/message-model';

export type ParsedArguments =
  | { ok: true; arguments: Record<string, unknown>; repaired: boolean }
  | { ok: false; malformed: { raw: string; reason: string } };

/** Parses a tool call's raw argument text. Empty text means no arguments. */
export function parseToolArguments(raw: string): ParsedArguments {
  const text = stripFence(raw.trim());
  if (text === '') return { ok: true, arguments: {}, repaired: false };
  try {
    return asObject(JSON.parse(text), raw, false);
  } catch {
    // fall through to repair
  }
  const incomplete = incompleteReason(text);
  if (incomplete) return { ok: false, malformed: { raw, reason: incomplete } };
  try {
    return asObject(JSON.parse(jsonrepair(text)), raw, true);
  } catch (err) {
    return { ok: false, malformed: { raw, reason: `unrepairable JSON: ${(err as Error).message}` } };
  }
}

function asObject(value: unknown, raw: string, repaired: boolean): ParsedArguments {
  if (isPlainObject(value)) return { ok: true, arguments: value, repaired };
  return { ok: false, malformed: { raw, reason: 'arguments must be a JSON object' } };
}

function stripFence(text: string): string {
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/i.exec(text);
  return fenced ? fenced[1] : text;
}

/**
 * Says why the text looks cut off: an unterminated string or unbalanced brackets. Both quote
 * styles count as strings, since models sometimes use single quotes.
 */
function incompleteReason(text: string): string | undefined {
  const stack: string[] = [];
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '{' || ch === '[') stack.push(ch);
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== (ch === '}' ? '{' : '[')) return 'mismatched brackets';
    }
  }
  if (quote) return 'incomplete JSON: unterminated string (output was probably cut off)';
  if (stack.length > 0) return 'incomplete JSON: unclosed brackets (output was probably cut off)';
  return undefined;
}

/** Builds the neutral tool-call block from raw argument text. */
export function toolCallFromRaw(id: string, name: string, raw: string): ToolCallBlock {
  const parsed = parseToolArguments(raw);
  if (parsed.ok) return { type: 'tool_call', id, name, arguments: parsed.arguments };
  return { type: 'tool_call', id, name, arguments: {}, malformed: parsed.malformed };
}

/** Marks a call whose arguments the output-token limit cut off. Such a call must never run. */
export function markTruncated(call: ToolCallBlock, raw: string): ToolCallBlock {
  return {
    ...call,
    arguments: {},
    malformed: { raw, reason: 'output hit the max-tokens limit inside this tool call' },
  };
}
