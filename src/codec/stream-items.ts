/**
 * Entries of a run's stream inside a payload: the token batches a model call signals
 * (`{ items: [{ topic, data }], publisher_id, sequence }`), what a stream poll answers
 * (`{ items: [{ topic, data, offset }], next_offset }`) and the stream a run carries across
 * continue-as-new (`{ log: [...], base_offset }`). Each entry's `data` is a serialized payload in
 * base64, opaque to a reader; decoding puts its value beside it (`value` first, so a one-line
 * preview shows it), and leaves `data` as it was.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { decodePayloadWire } from '@temporalio/workflow-streams/workflow';
import { isPlainObject } from '../common/type-helpers';
import { objectsIn, placeFirst } from './json-objects';

/** The value of one entry's `data`; undefined when it is not a serialized payload the default converter reads. */
function entryValue(data: string): { value: unknown } | undefined {
  try {
    return { value: defaultPayloadConverter.fromPayload(decodePayloadWire(data)) };
  } catch {
    return undefined;
  }
}

/** The stream entries of `list`: objects with a string `topic` and a string `data`. */
function entriesOf(list: unknown): Record<string, unknown>[] {
  if (!Array.isArray(list)) return [];
  return list.filter(
    (e): e is Record<string, unknown> => isPlainObject(e) && typeof e.topic === 'string' && typeof e.data === 'string',
  );
}

/**
 * Puts each stream entry's value beside its `data`, in place, in the `items` or `log` lists of
 * `root` (at any depth). Returns how many entries it decoded.
 */
export function expandStreamItems(root: unknown): number {
  let decoded = 0;
  for (const node of objectsIn(root)) {
    for (const entry of [...entriesOf(node.items), ...entriesOf(node.log)]) {
      if ('value' in entry) continue;
      const read = entryValue(entry.data as string);
      if (!read) continue;
      placeFirst(entry, [['value', read.value]]);
      decoded += 1;
    }
  }
  return decoded;
}
