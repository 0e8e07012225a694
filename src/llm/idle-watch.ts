/**
 * Hang detection for one provider call: the attempt fails when no byte has arrived for the idle
 * timeout, however long the whole answer takes. The SDK clients fetch through {@link IdleWatch.fetch},
 * which reports the response's arrival and every chunk of its body, keep-alive comments included.
 */

/** Statuses whose responses have no body (a `Response` refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

export class IdleWatch {
  private readonly controller = new AbortController();
  private lastByteAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Whether the watch ended the call. */
  fired = false;

  constructor(readonly timeoutMs: number) {
    this.arm(timeoutMs);
  }

  /** Aborts when the call has been idle for the timeout. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Something arrived from the provider. */
  touch(): void {
    this.lastByteAt = Date.now();
  }

  /** The call is over; the watch never fires after this. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), ms).unref();
  }

  private check(): void {
    if (this.stopped) return;
    const idle = Date.now() - this.lastByteAt;
    if (idle < this.timeoutMs) return this.arm(this.timeoutMs - idle);
    this.fired = true;
    this.controller.abort(new Error(`no data from the provider for ${this.timeoutMs} ms`));
  }

  /** `fetch` for the SDK clients: touches the watch when the response arrives and on every chunk of its body. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    this.touch();
    if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          this.touch();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
