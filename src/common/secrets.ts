/**
 * Secret values and their replacement by a marker in text and in JSON-like values. The worker
 * registers every credential it holds; the codec server uses the same rules for bytes.
 */

export const REDACTED = '[redacted]';

/** Values shorter than this are not treated as secrets (they would match ordinary text). */
export const MIN_SECRET_LENGTH = 8;

/** The distinct secrets worth replacing, longest first (a secret that contains another is replaced whole). */
export function secretList(values: Iterable<string | undefined>): string[] {
  const kept = new Set<string>();
  for (const value of values) {
    const trimmed = value?.trim();
    if (trimmed && trimmed.length >= MIN_SECRET_LENGTH) kept.add(trimmed);
  }
  return [...kept].sort((a, b) => b.length - a.length);
}

/** A growing set of secrets; everything that leaves the place holding them goes through {@link redact}. */
export class SecretSet {
  private values: string[] = [];

  constructor(values: Iterable<string | undefined> = []) {
    this.add(...values);
  }

  /** Registers secrets (short or empty values are ignored). */
  add(...values: (string | undefined)[]): void {
    this.values = secretList([...this.values, ...values]);
  }

  get size(): number {
    return this.values.length;
  }

  /** The secrets, longest first. */
  list(): readonly string[] {
    return this.values;
  }

  /** Length of the longest secret (0 when there is none). */
  get longest(): number {
    return this.values[0]?.length ?? 0;
  }

  /** The text with every secret replaced by {@link REDACTED}. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.values) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }

  /**
   * A JSON-like value with every string (keys included) redacted; the same value when nothing
   * changed, so a clean result costs no copy. Class instances other than plain objects and arrays
   * are returned as they are.
   */
  redactValue<T>(value: T): T {
    if (this.values.length === 0) return value;
    return this.walk(value, 0) as T;
  }

  private walk(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (typeof value !== 'object' || value === null || depth > 64) return value;
    if (Array.isArray(value)) {
      const out = value.map((item) => this.walk(item, depth + 1));
      return out.some((clean, i) => clean !== value[i]) ? out : value;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const cleanKey = this.redact(key);
      const clean = this.walk(item, depth + 1);
      if (clean !== item || cleanKey !== key) changed = true;
      out[cleanKey] = clean;
    }
    return changed ? out : value;
  }
}

/**
 * Redacts a text that arrives in pieces (a model's token stream), so a secret split across pieces
 * is still found: the last characters that could begin a secret wait for the next piece.
 */
export class PieceRedactor {
  private pending = '';

  constructor(private readonly secrets: SecretSet) {}

  /** What of the text so far can be shown now. */
  push(piece: string): string {
    const text = this.secrets.redact(this.pending + piece);
    const held = Math.min(text.length, Math.max(0, this.secrets.longest - 1));
    this.pending = text.slice(text.length - held);
    return text.slice(0, text.length - held);
  }

  /** The rest, at the end of the text. */
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return rest;
  }
}
