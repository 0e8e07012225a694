/** Response-format instructions for APIs without a native JSON mode. */
import type { ResponseFormat } from '../contracts/message-model';

/** The system-prompt addition that asks for JSON output, or undefined for plain text. */
export function jsonInstruction(format: ResponseFormat | undefined): string | undefined {
  if (!format || format.type === 'text') return undefined;
  const base = 'Respond with a single JSON value only: no prose before or after it, and no Markdown code fences.';
  if (format.type === 'json') return base;
  return (
    `${base} The JSON must conform to this JSON Schema (named ` + `"${format.name}"):\n${JSON.stringify(format.schema)}`
  );
}
