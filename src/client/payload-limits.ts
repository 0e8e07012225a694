/**
 * The server's payload size limit, checked before anything is sent: a payload over it would be
 * refused (a start retries for a long while first), so the client refuses it at once, naming the
 * limit and the way round it.
 */
import type { Client } from '@temporalio/client';
import { PayloadTooLargeError } from './client-errors';

/** Temporal's default blob size limit (`limit.blobSize.error`), used when the server does not report its own. */
export const DEFAULT_PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;

/** Room for the payload's encoding metadata and the request around it. */
const ENVELOPE_BYTES = 1024;

const formatBytes = (bytes: number): string =>
  bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
    : bytes >= 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${bytes} bytes`;

/** Reads the limit once per client: an explicit one, else the namespace's, else the default. */
export class PayloadLimit {
  private known?: Promise<{ bytes: number; source: string }>;

  constructor(
    private readonly client: Client,
    private readonly explicit?: number,
  ) {}

  private read(): Promise<{ bytes: number; source: string }> {
    this.known ??= (async () => {
      if (this.explicit !== undefined) return { bytes: this.explicit, source: 'the configured payload limit' };
      try {
        const { namespaceInfo } = await this.client.workflowService.describeNamespace({
          namespace: this.client.options.namespace,
        });
        const reported = Number(namespaceInfo?.limits?.blobSizeLimitError ?? 0);
        if (reported > 0) return { bytes: reported, source: "the server's payload limit" };
      } catch {
        // An older server, or no permission to describe the namespace: the default applies.
      }
      return { bytes: DEFAULT_PAYLOAD_LIMIT_BYTES, source: "Temporal's default payload limit" };
    })();
    return this.known;
  }

  /**
   * Refuses `value` when it would not fit in one payload.
   * @param what what the payload is, e.g. "the task"
   * @param way how to get it through anyway
   */
  async check(value: unknown, what: string, way: string): Promise<void> {
    const size = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') + ENVELOPE_BYTES;
    const limit = await this.read();
    if (size <= limit.bytes) return;
    throw new PayloadTooLargeError(
      `${what} is ${formatBytes(size)}, over ${limit.source} of ${formatBytes(limit.bytes)}: ${way}`,
    );
  }
}
