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

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function repairObject(text: string): Record<string, unknown> | undefined {
  try {
    return parseObject(jsonrepair(text));
  } catch {
    return undefined;
  }
}

/**
 * The span from the first `{` to the brace that closes it (string-aware), or to the end of
 * the text when it never closes (a truncated answer, left for repair).
 */
export function balancedObjectSpan(text: string, from = 0): { start: number; end: number } | undefined {
  const start = text.indexOf('{', from);
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
    else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return { start, end: i + 1 };
    }
  }
  return { start, end: text.length };
}

function candidates(text: string): { text: string; method: ExtractMethod }[] {
  const out: { text: string; method: ExtractMethod }[] = [{ text: text.trim(), method: 'direct' }];
  for (const m of text.matchAll(FENCE)) {
    const body = m[1]?.trim();
    if (body) out.push({ text: body, method: 'fenced' });
  }
  let from = 0;
  for (let n = 0; n < 8; n++) {
    const span = balancedObjectSpan(text, from);
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
    const value = parseObject(c.text);
    if (value) return { ok: true, value, method: c.method };
  }
  for (const c of tries) {
    if (!c.text.includes('{')) continue;
    const fromBrace = c.text.slice(c.text.indexOf('{'));
    const value = repairObject(fromBrace);
    if (value) return { ok: true, value, method: 'repaired' };
  }
  return { ok: false, reason: 'no JSON object could be found or repaired in the answer' };
}
