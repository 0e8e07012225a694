/** Payloads in the codec protocol's proto3 JSON form, and a client for a codec server under test. */

export interface WirePayload {
  metadata?: Record<string, string>;
  data?: string;
  [field: string]: unknown;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** A payload as the SDK's default converter writes a JSON value. */
export function jsonPayload(value: unknown): WirePayload {
  return { metadata: { encoding: b64('json/plain') }, data: b64(JSON.stringify(value)) };
}

/** A payload of any encoding. */
export function rawPayload(encoding: string, data?: Buffer): WirePayload {
  return { metadata: { encoding: b64(encoding) }, ...(data ? { data: data.toString('base64') } : {}) };
}

/** The JSON value a payload holds. */
export function valueOf(payload: WirePayload): Record<string, unknown> {
  return JSON.parse(Buffer.from(payload.data ?? '', 'base64').toString('utf8')) as Record<string, unknown>;
}

export interface CodecResponse {
  status: number;
  headers: Headers;
  text: string;
  payloads: WirePayload[];
}

/** POSTs `body` (a value is sent as JSON, a string as is) to `url` and reads the answer. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<CodecResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let payloads: WirePayload[] = [];
  if (response.status === 200) payloads = (JSON.parse(text) as { payloads: WirePayload[] }).payloads;
  return { status: response.status, headers: response.headers, text, payloads };
}
