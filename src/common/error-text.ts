/**
 * The message of anything thrown, as one readable text: an Error's message (or its name), a string
 * as it is, an object's `message` when it has one, else the object as JSON. Never "[object Object]".
 */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string') return err;
  if (err !== null && typeof err === 'object') {
    const message = (err as { message?: unknown }).message;
    if (typeof message === 'string' && message !== '') return message;
    try {
      const json = JSON.stringify(err);
      if (json !== undefined && json !== '{}') return json;
    } catch {
      // A circular or otherwise unserialisable value: named by its constructor below.
    }
    return `a thrown ${(err as object).constructor?.name ?? 'object'} without a message`;
  }
  return String(err);
}

/** `text` on one line: each line break, with the spaces around it, becomes one space; trimmed. */
export const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ').trim();
