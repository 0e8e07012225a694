import { MAX_TOOL_LOG_CHARS } from '../contracts/tool-catalog';

/** The text a tool call that returned nothing produces. */
const SUCCESS_TEXT = 'Success (the tool returned no output).';

/** Result formatting: strings as they are, nothing as a success text, everything else as JSON. */
export function formatToolResult(value: unknown): string {
  if (value === undefined || value === null) return SUCCESS_TEXT;
  if (typeof value === 'string') return value.length > 0 ? value : SUCCESS_TEXT;
  if (typeof value === 'object') {
    try {
      return JSON.stringify(value, null, 2) ?? SUCCESS_TEXT;
    } catch {
      return String(value);
    }
  }
  return String(value);
}

/** Cuts text to `maxChars`, saying so at the end, so the model knows the output is incomplete. */
export function capOutput(text: string, maxChars: number): { content: string; truncated: boolean } {
  if (text.length <= maxChars) return { content: text, truncated: false };
  const note = `\n…[output truncated: ${maxChars} of ${text.length} characters shown]`;
  return { content: text.slice(0, Math.max(0, maxChars - note.length)) + note, truncated: true };
}

/** A call's logged lines as one text of at most {@link MAX_TOOL_LOG_CHARS}: the last lines when longer. */
export function toolLog(lines: readonly string[]): string {
  const text = lines.join('\n');
  if (text.length <= MAX_TOOL_LOG_CHARS) return text;
  const tail = text.slice(text.length - MAX_TOOL_LOG_CHARS);
  const lineStart = tail.indexOf('\n');
  return `…${lineStart >= 0 && lineStart < 200 ? tail.slice(lineStart) : tail}`;
}
