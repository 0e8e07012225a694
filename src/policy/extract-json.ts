/**
 * Tolerant extraction of one JSON object from a model's text answer: code fences, prose around
 * the object, and repairable JSON (trailing commas, single quotes, a truncated tail) are all
 * accepted. Pure and workflow-safe (`jsonrepair`'s main entry imports no Node built-ins).
 */
import { jsonrepair } from 'jsonrepair';
import { isPlainObject } from '../common/type-helpers';

export type ExtractMethod = 'direct' | 'fenced' | 'embedded' | 'repaired';

export type ExtractResult =
  { ok: true; value: Record<string, unknown>; method: ExtractMethod } | { ok: false; reason: string };

const FENCE = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)(?:```|$)/g;

/** `text` parsed as JSON (mended first with `repair`), or undefined where it is not. */
function parsed(text: string, repair = false): unknown {
  try {
    return JSON.parse(repair ? jsonrepair(text) : text);
  } catch {
    return undefined;
  }
}

/**
 * The span from the first `{` (or `open`) to the bracket that closes it (string-aware), or to the
 * end of the text when it never closes (a truncated answer, left for repair).
 */
export function balancedObjectSpan(
  text: string,
  from: number,
  open: '{' | '[',
): { start: number; end: number } | undefined {
  const close = open === '{' ? '}' : ']';
  const start = text.indexOf(open, from);
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === open) depth++;
    else if (ch === close) {
      depth--;
      if (depth === 0) return { start, end: i + 1 };
    }
  }
  return { start, end: text.length };
}

/** Where a JSON value (an object, or an array with `open` `[`) may be: the text, each code fence, each span. */
function candidates(text: string, open: '{' | '[' = '{'): { text: string; method: ExtractMethod }[] {
  const out: { text: string; method: ExtractMethod }[] = [{ text: text.trim(), method: 'direct' }];
  for (const m of text.matchAll(FENCE)) {
    const body = m[1]?.trim();
    if (body) out.push({ text: body, method: 'fenced' });
  }
  let from = 0;
  for (let n = 0; n < 8; n++) {
    const span = balancedObjectSpan(text, from, open);
    if (!span) break;
    out.push({ text: text.slice(span.start, span.end), method: 'embedded' });
    from = span.end;
  }
  return out;
}

/** Finds the JSON object in `text`, trying exact parses before any repair. */
export function extractJsonObject(text: string): ExtractResult {
  if (!text.trim()) return { ok: false, reason: 'the answer was empty; a JSON object was expected' };
  const tries = candidates(text);
  for (const c of tries) {
    const value = parsed(c.text);
    if (isPlainObject(value)) return { ok: true, value, method: c.method };
  }
  for (const c of tries) {
    if (!c.text.includes('{')) continue;
    const value = parsed(c.text.slice(c.text.indexOf('{')), true);
    if (isPlainObject(value)) return { ok: true, value, method: 'repaired' };
  }
  return { ok: false, reason: 'no JSON object could be found or repaired in the answer' };
}

/** `[` then, past any whitespace, what starts a JSON value: an array a repair may mend, not a bracketed word. */
const JSON_ARRAY_START = /^\[\s*(?:[{["\d\]-]|true|false|null|$)/;

/**
 * Finds a JSON array at the root of `text` (the whole text, a code fence, or an array in prose
 * that holds exactly one), trying exact parses before a repair. Undefined when there is none.
 */
export function extractJsonArray(text: string): { value: unknown[]; method: ExtractMethod } | undefined {
  const tries = candidates(text, '[');
  for (const c of tries) {
    const value = parsed(c.text);
    if (Array.isArray(value)) return { value, method: c.method };
  }
  for (const c of tries) {
    if (c.method === 'embedded' || !JSON_ARRAY_START.test(c.text)) continue;
    const value = parsed(c.text, true);
    if (Array.isArray(value)) return { value, method: 'repaired' };
  }
  return undefined;
}
