/**
 * Numbers people give: command-line flags and the config file. One reading for all of them:
 * decimal notation only (no hex, octal, binary or `Infinity`, which `Number()` takes), checked
 * against the range the value is for, with a reason of one line that names the range. And the one
 * way a dollar amount is shown.
 */

/** The numbers a value may be; `what` names them in a reason (`a number of USD`, `a whole number`). */
export interface NumberRange {
  what: string;
  min?: number;
  max?: number;
  /** Whole numbers only (and at most `Number.MAX_SAFE_INTEGER`). */
  integer?: boolean;
  /** Written in decimal digits only: no sign, point or exponent (a port, not `1e3`). */
  digitsOnly?: boolean;
}

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The range in words: `a number of USD from 0.000001 to 1000000000`, `a whole number of at least 1`. */
export function rangeText(range: NumberRange): string {
  const { what, min, max } = range;
  if (min !== undefined && max !== undefined) return `${what} from ${min} to ${max}`;
  if (min !== undefined) return `${what} of at least ${min}`;
  if (max !== undefined) return `${what} of at most ${max}`;
  return what;
}

/** Whether `value` is a finite number in `range`. */
export function inRange(value: unknown, range: NumberRange): value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  if (range.integer && !Number.isSafeInteger(value)) return false;
  return (range.min === undefined || value >= range.min) && (range.max === undefined || value <= range.max);
}

/** Why `value` is not in `range` (`must be a whole number of at least 1, got 0`), or undefined. */
export function rangeProblem(value: unknown, range: NumberRange): string | undefined {
  return inRange(value, range) ? undefined : `must be ${rangeText(range)}, got ${String(value)}`;
}

/** The number `text` writes in decimal notation, when it is in `range`; otherwise undefined. */
export function decimalIn(text: string, range: NumberRange): number | undefined {
  const trimmed = text.trim();
  const written = range.digitsOnly ? /^\d+$/.test(trimmed) : DECIMAL.test(trimmed);
  const value = written ? Number(trimmed) : NaN;
  return inRange(value, range) ? value : undefined;
}

/**
 * The number `text` writes in decimal notation, when it is in `range`; otherwise throws an error of
 * one line: `"0x3c" is not a number from 0.01 to 1000000`.
 */
export function parseDecimal(text: string, range: NumberRange): number {
  const value = decimalIn(text, range);
  if (value === undefined) throw new Error(`"${text}" is not ${rangeText(range)}`);
  return value;
}

/** A TCP port. */
export const PORT: NumberRange = { what: 'a port', min: 1, max: 65535, integer: true, digitsOnly: true };

/** A dollar amount as every output shows it: four decimals under a dollar, two above. */
export const usd = (amount: number): string => `$${amount.toFixed(Math.abs(amount) < 1 ? 4 : 2)}`;
