/**
 * Redaction of provider credentials from what the codec server returns. Stored bodies should
 * never hold a key; this is the second line: every value of the worker's key variables is
 * replaced wherever it appears in a returned payload.
 */
import type { Payload } from '@temporalio/common';
import { REDACTED, secretList } from '../common/secrets';

/** Replaces known secret values in bytes; returns the input itself when none occurs. */
export class Redactor {
  private readonly secrets: Buffer[];

  constructor(secrets: readonly string[]) {
    this.secrets = secretList(secrets).map((s) => Buffer.from(s, 'utf8'));
  }

  bytes(data: Uint8Array): Uint8Array {
    let buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    let changed = false;
    for (const secret of this.secrets) {
      if (buffer.indexOf(secret) === -1) continue;
      // latin1 maps bytes to characters one to one, so any payload (text or not) survives the round trip.
      const parts = buffer.toString('latin1').split(secret.toString('latin1'));
      buffer = Buffer.from(parts.join(REDACTED), 'latin1');
      changed = true;
    }
    return changed ? new Uint8Array(buffer) : data;
  }

  /** The payload with secrets replaced in its data and metadata; the same object when there were none. */
  payload(payload: Payload): Payload {
    if (this.secrets.length === 0) return payload;
    const data = payload.data ? this.bytes(payload.data) : payload.data;
    let metadata = payload.metadata;
    for (const [key, value] of Object.entries(payload.metadata ?? {})) {
      const clean = value ? this.bytes(value) : value;
      if (clean !== value) metadata = { ...metadata, [key]: clean };
    }
    return data === payload.data && metadata === payload.metadata ? payload : { ...payload, data, metadata };
  }
}
