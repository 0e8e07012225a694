/**
 * The payload codec behind the codec server: decoding shows each content-store reference of a
 * `json/plain` payload with its body beside it, and each entry of a run's stream (token batches,
 * stream polls) with its value beside its serialized form; encoding is the identity. The payloads
 * a worker writes are never changed: this only serves what operators read.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { ContentStore } from '../store';
import { expandReferences, sharedLookup } from './references';
import type { Redactor } from './redact';
import { expandStreamItems } from './stream-items';

const JSON_PLAIN = 'json/plain';

/** A {@link PayloadCodec} that expands content-store references for reading, redacting every payload it decodes. */
export class ReferenceCodec implements PayloadCodec {
  constructor(
    private readonly store: ContentStore,
    private readonly redactor: Redactor,
  ) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  /** Payloads it does not understand come back unchanged (the same objects); a missing body is marked. */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    const lookup = sharedLookup((hash) => this.store.get(hash));
    return Promise.all(
      payloads.map(async (payload) => {
        const value = jsonOf(payload);
        if (value === undefined) return this.redactor.payload(payload);
        // Stream entries first: the events they hold name bodies too.
        const entries = expandStreamItems(value);
        const found = await expandReferences(value, lookup);
        if (entries + found === 0) return this.redactor.payload(payload);
        return this.redactor.payload({ ...payload, data: new TextEncoder().encode(JSON.stringify(value)) });
      }),
    );
  }
}

/** The parsed value of a `json/plain` payload; undefined for any other encoding or unparsable data. */
function jsonOf(payload: Payload): unknown {
  const encoding = payload.metadata?.encoding;
  if (!encoding || Buffer.from(encoding).toString('utf8') !== JSON_PLAIN || !payload.data) return undefined;
  try {
    return JSON.parse(Buffer.from(payload.data).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
