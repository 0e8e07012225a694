/**
 * Content-store references inside a payload's JSON, and their expansion. Workflow histories hold
 * references, not bodies: a message's `{seq, kind, hash, …}` metadata, and named hash fields such
 * as a conversation view's `summaryHash`. Expanding puts each body beside its reference (`body`
 * beside a message's `hash`, `summaryBody` beside `summaryHash`, …) and leaves the reference as it was.
 */

const HASH = /^[0-9a-f]{64}$/;

/** Fields of the activity and state contracts that name a stored body by its content hash. */
export const REFERENCE_FIELDS = ['summaryHash', 'toolSpecsHash', 'promptHash', 'fromHash', 'resultHash'] as const;

/** What a lookup found for one hash: the body, or why there is none. */
export type BodyLookupResult = { body: unknown } | { missing: string };

export type BodyLookup = (hash: string) => Promise<BodyLookupResult>;

/** One place a body goes: `target[key]`, with `target[key + 'Missing']` when it cannot be read. */
interface Slot {
  target: Record<string, unknown>;
  key: string;
  hash: string;
}

/** The key a body is put under, beside the reference field `field`. */
export function bodyKeyOf(field: string): string {
  return field === 'hash' ? 'body' : `${field.slice(0, -'Hash'.length)}Body`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function slotFor(target: Record<string, unknown>, field: string): Slot | undefined {
  const hash = target[field];
  const key = bodyKeyOf(field);
  if (typeof hash !== 'string' || !HASH.test(hash) || key in target || `${key}Missing` in target) return undefined;
  return { target, key, hash };
}

/** Every reference in `root`, in document order (walked without recursion, so any depth is safe). */
export function findReferences(root: unknown): Slot[] {
  const slots: Slot[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
      continue;
    }
    if (!isObject(value)) continue;
    // A message's metadata (or a log entry): a dense log position beside its body's hash.
    if (typeof value.seq === 'number') {
      const slot = slotFor(value, 'hash');
      if (slot) slots.push(slot);
    }
    for (const field of REFERENCE_FIELDS) {
      const slot = slotFor(value, field);
      if (slot) slots.push(slot);
    }
    const children = Object.values(value);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return slots;
}

/** Options of {@link expandReferences}. */
export interface ExpandOptions {
  /** References expanded in one value; the rest are marked as not expanded. Default 1000. */
  maxReferences?: number;
}

/**
 * Puts the body of every reference in `root` beside it, in place. A body that cannot be read is
 * marked (`bodyMissing`, `summaryBodyMissing`, …) with the reason. Returns how many references
 * were found.
 */
export async function expandReferences(
  root: unknown,
  lookup: BodyLookup,
  options: ExpandOptions = {},
): Promise<number> {
  const slots = findReferences(root);
  const max = options.maxReferences ?? 1000;
  const results = await Promise.all(
    slots.map((slot, i): Promise<BodyLookupResult> | BodyLookupResult =>
      i < max ? lookup(slot.hash) : { missing: `not expanded: more than ${max} references in one payload` },
    ),
  );
  slots.forEach((slot, i) => {
    const result = results[i];
    if ('body' in result) slot.target[slot.key] = result.body;
    else slot.target[`${slot.key}Missing`] = result.missing;
  });
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
  const message = error instanceof Error ? error.message : String(error);
  return `content store error: ${message.replace(/\s+/g, ' ').trim().slice(0, 300)}`;
}
