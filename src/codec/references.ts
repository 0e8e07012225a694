/**
 * Content-store references inside a payload's JSON, and their expansion. Workflow histories hold
 * references, not bodies: a message's `{seq, kind, hash, …}` metadata (or a tool call's
 * `{hash, tokens, …}` output), and named hash fields such as a conversation view's `summaryHash`.
 * Expanding puts each body beside its reference (`body` beside a message's `hash`, `summaryBody`
 * beside `summaryHash`, …) and leaves the reference as it was. The body goes first in its object,
 * so a one-line preview (the Web UI's timeline) shows text.
 */

import { errorText } from '../common/error-text';
import { objectsIn, placeFirst } from './json-objects';

const HASH = /^[0-9a-f]{64}$/;

/** Fields of the activity and state contracts that name a stored body by its content hash. */
const REFERENCE_FIELDS = [
  'summaryHash',
  'toolSpecsHash',
  'promptHash',
  'selectionHash',
  'fromHash',
  'resultHash',
] as const;

/** References expanded in one value; the rest are marked as not expanded. */
const MAX_REFERENCES = 1000;

/** What a lookup found for one hash: the body, or why there is none. */
type BodyLookupResult = { body: unknown } | { missing: string };

export type BodyLookup = (hash: string) => Promise<BodyLookupResult>;

/** One place a body goes: `target[key]`, with `target[key + 'Missing']` when it cannot be read. */
interface Slot {
  target: Record<string, unknown>;
  /** The reference field (`hash`, `summaryHash`, …). */
  field: string;
  key: string;
  hash: string;
}

function slotFor(target: Record<string, unknown>, field: string): Slot | undefined {
  const hash = target[field];
  const key = field === 'hash' ? 'body' : `${field.slice(0, -'Hash'.length)}Body`;
  if (typeof hash !== 'string' || !HASH.test(hash) || key in target || `${key}Missing` in target) return undefined;
  return { target, field, key, hash };
}

/** Every reference in `root`, in document order. */
function findReferences(root: unknown): Slot[] {
  const slots: Slot[] = [];
  for (const value of objectsIn(root)) {
    // A message's metadata (or a log entry): a dense log position, or a size, beside its body's hash.
    const fields = typeof value.seq === 'number' || typeof value.tokens === 'number' ? ['hash'] : [];
    for (const field of [...fields, ...REFERENCE_FIELDS]) {
      const slot = slotFor(value, field);
      if (slot) slots.push(slot);
    }
  }
  return slots;
}

/**
 * Puts the body of every reference in `root` beside it, in place. A body that cannot be read is
 * marked (`bodyMissing`, `summaryBodyMissing`, …) with the reason. Returns how many references
 * were found.
 */
export async function expandReferences(root: unknown, lookup: BodyLookup): Promise<number> {
  const slots = findReferences(root);
  const results = await Promise.all(
    slots.map((slot, i): Promise<BodyLookupResult> | BodyLookupResult =>
      i < MAX_REFERENCES
        ? lookup(slot.hash)
        : { missing: `not expanded: more than ${MAX_REFERENCES} references in one payload` },
    ),
  );
  const added = new Map<Record<string, unknown>, Map<string, [string, unknown]>>();
  slots.forEach((slot, i) => {
    const result = results[i];
    const entry: [string, unknown] =
      'body' in result ? [slot.key, result.body] : [`${slot.key}Missing`, result.missing];
    const fields = added.get(slot.target) ?? new Map<string, [string, unknown]>();
    added.set(slot.target, fields.set(slot.field, entry));
  });
  // The body entries go first, in the order of their reference fields.
  for (const [target, fields] of added) {
    const bodies = Object.keys(target)
      .map((key) => fields.get(key))
      .filter((body) => body !== undefined);
    placeFirst(target, bodies);
  }
  return slots.length;
}

/**
 * A lookup that reads each hash once however often it is asked (bodies are content-addressed, so
 * a body never changes), with at most `concurrency` reads in flight.
 */
export function sharedLookup(read: (hash: string) => Promise<unknown>, concurrency = 16): BodyLookup {
  const seen = new Map<string, Promise<BodyLookupResult>>();
  const waiting: (() => void)[] = [];
  let active = 0;
  const slot = async (): Promise<void> => {
    if (active < concurrency) {
      active++;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return (hash) => {
    let result = seen.get(hash);
    if (!result) {
      result = (async (): Promise<BodyLookupResult> => {
        await slot();
        try {
          return { body: await read(hash) };
        } catch (error) {
          return { missing: missingReason(error) };
        } finally {
          release();
        }
      })();
      seen.set(hash, result);
    }
    return result;
  };
}

function missingReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'not_found') return 'not in the content store';
  return `content store error: ${errorText(error).replace(/\s+/g, ' ').trim().slice(0, 300)}`;
}
