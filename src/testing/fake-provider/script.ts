/**
 * What a test scripts the fake provider to answer. Steps are wire-neutral: the same step is
 * rendered as an Anthropic Messages response or an OpenAI Chat Completions response depending
 * on the endpoint that receives the request.
 */

export type FakeBlock =
  | { type: 'text'; text: string }
  /** `signature` defaults to a valid signature issued by this fake for the receiving endpoint. */
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redactedThinking'; data: string }
  /**
   * `rawArguments` sends argument text as is (e.g. malformed JSON); otherwise `arguments` is
   * serialized. `id` defaults to a fresh id in the endpoint's own format.
   */
  | {
      type: 'tool_call';
      name: string;
      arguments?: Record<string, unknown>;
      rawArguments?: string;
      id?: string;
      /** OpenAI format only: attach a Gemini-style thought signature that must come back with the call. */
      thoughtSignature?: boolean;
    };

export interface FakeUsage {
  /** Uncached input tokens. */
  input?: number;
  output?: number;
  cacheRead?: number;
  /** Anthropic only; OpenAI has no cache-write count. */
  cacheWrite?: number;
}

export type FakeStopReason = 'stop' | 'tool_use' | 'length' | 'stop_sequence' | 'content_filter' | 'refusal';

export interface FakeReply {
  kind: 'reply';
  content: FakeBlock[];
  /** Defaults to `tool_use` when the content has tool calls, else `stop`; `truncate` forces `length`. */
  stopReason?: FakeStopReason;
  /** Cut the output as a token limit would: the last block loses its second half. */
  truncate?: boolean;
  /** Defaults: input estimated from the request size, output from the reply size. */
  usage?: FakeUsage;
  /** Wait before sending the response headers. */
  delayMs?: number;
  /** Streaming requests only: drop the connection after this many SSE events. */
  breakAfterEvents?: number;
  /** Streaming requests only: pause between SSE events (default: all events in one write). */
  eventDelayMs?: number;
  /**
   * OpenAI streaming only: leave these fields out of the tool-call chunks, as some compatible
   * servers do (Ollama has sent calls without `id` and without `index`).
   */
  omitToolCallFields?: ('id' | 'index')[];
}

export interface FakeError {
  kind: 'error';
  status: number;
  message?: string;
  /** Provider error type in the body; defaults to the provider's type for the status. */
  errorType?: string;
  /** OpenAI `error.code` (e.g. `context_length_exceeded`). */
  code?: string;
  /** Extra response headers, e.g. `{ 'retry-after': '7' }` or `{ 'retry-after-ms': '1500' }`. */
  headers?: Record<string, string>;
  delayMs?: number;
  /** Streaming requests only: answer 200, then report the error inside the event stream. */
  inStream?: boolean;
  /** Echo the API key the request carried in the message and an `x-echoed-api-key` header, as some servers do. */
  echoKey?: boolean;
}

/** Close the connection without any response. */
export interface FakeReset {
  kind: 'reset';
  delayMs?: number;
}

/** Never answer (until the client gives up). */
export interface FakeHang {
  kind: 'hang';
}

export type FakeStep = FakeReply | FakeError | FakeReset | FakeHang;

/** Which wire format a request arrived in. */
export type FakeApi = 'anthropic' | 'openai';

/** One request as the fake saw it. */
export interface RecordedRequest {
  /** Sequence number, starting at 1. */
  seq: number;
  api: FakeApi;
  method: string;
  /** Full path, e.g. `/minimax/v1/messages`. */
  path: string;
  /** Path before the API part (`/minimax` above); signatures are bound to it. */
  prefix: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  stream: boolean;
  /** HTTP status the fake answered (0 for a dropped connection or no answer). */
  status: number;
  /** When the request arrived, its body read (ms since the epoch). */
  receivedAt: number;
  /** When the fake sent a streamed answer's first piece of content (text, thinking or tool arguments). */
  firstDeltaAt?: number;
  /** Why the fake refused the request (validation, missing key, script exhausted). */
  error?: string;
}

/** Computes a step from the request; used when the queue is empty (e.g. for long conversations). */
export type FakeResponder = (request: RecordedRequest) => FakeStep | Promise<FakeStep>;

/** What a reply builder takes besides the content. */
type ReplyExtra = Partial<Omit<FakeReply, 'kind' | 'content'>>;

/** Step builders, so scripts read as what the model does. */
export const reply = {
  text: (text: string, extra: ReplyExtra = {}): FakeReply => reply.blocks([{ type: 'text', text }], extra),
  blocks: (content: FakeBlock[], extra: ReplyExtra = {}): FakeReply => ({ kind: 'reply', content, ...extra }),
  toolCalls: (
    calls: Omit<Extract<FakeBlock, { type: 'tool_call' }>, 'type'>[],
    { text, ...extra }: ReplyExtra & { text?: string } = {},
  ): FakeReply =>
    reply.blocks(
      [...(text ? [{ type: 'text' as const, text }] : []), ...calls.map((c) => ({ type: 'tool_call' as const, ...c }))],
      extra,
    ),
  error: (status: number, extra: Omit<FakeError, 'kind' | 'status'> = {}): FakeError => ({
    kind: 'error',
    status,
    ...extra,
  }),
  reset: (delayMs?: number): FakeReset => ({ kind: 'reset', delayMs }),
  hang: (): FakeHang => ({ kind: 'hang' }),
};

/** Options of `startFakeProvider`. */
export interface FakeProviderOptions {
  /** Defaults to an ephemeral port. */
  port?: number;
  /** When set, only this API key is accepted (others get 401); otherwise any non-empty key is. */
  apiKey?: string;
  /**
   * Bill prompts with prompt caching as each wire format does (`prompt-cache.ts`): Anthropic's
   * `cache_control` breakpoints, OpenAI's automatic prefix cache. Default true; false bills every
   * prompt token as uncached input. A step's scripted usage always wins.
   */
  promptCache?: boolean;
}

export interface FakeProvider {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Base URL for the Anthropic SDK (`baseURL`); `prefix` stands in for another provider, e.g. `/minimax`. */
  anthropicBaseUrl: (prefix?: string) => string;
  /** Base URL for the OpenAI SDK (`baseURL`), ending in `/v1`. */
  openaiBaseUrl: (prefix?: string) => string;
  /** Queues steps; each request takes the next one. */
  script: (...steps: FakeStep[]) => void;
  /** Answers requests when the queue is empty; `undefined` removes it. */
  respond: (responder: FakeResponder | undefined) => void;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Steps still queued. */
  pending: () => number;
  /** Clears queue, responder and recorded requests. */
  reset: () => void;
  close: () => Promise<void>;
}
