/** The codec protocol's request bodies: read under a size cap, parsed from proto3 JSON (bytes as base64). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Payload } from '@temporalio/common';
import { JSONToPayload, type JSONPayload } from '@temporalio/common/lib/proto-utils';
import { isPlainObject } from '../common/type-helpers';

/** A refusal answered with `status` and its one-line message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The request body as text, up to `max` bytes. Past the cap the rest is drained unread and the
 * connection closes after the 413, so the client still gets the answer.
 */
export function readBody(req: IncomingMessage, res: ServerResponse, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => {
      res.setHeader('Connection', 'close');
      req.removeAllListeners('data');
      req.resume();
      reject(new HttpError(413, `request body over ${max} bytes: send fewer payloads per request`));
    };
    if (Number(req.headers['content-length'] ?? 0) > max) return tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) tooLarge();
      else chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

/** The request's payloads, and their JSON forms (returned as they came when the codec leaves a payload unchanged). */
export function parsePayloads(text: string): { payloads: Payload[]; originals: unknown[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `the body is not JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(json)) throw new HttpError(400, 'the body must be a JSON object {"payloads": [...]}');
  const list = json.payloads ?? [];
  if (!Array.isArray(list)) throw new HttpError(400, '"payloads" must be an array');
  const payloads = list.map((item: unknown, i): Payload => {
    if (!isPlainObject(item)) throw new HttpError(400, `payload ${i} is not an object`);
    try {
      return JSONToPayload(item as JSONPayload);
    } catch (error) {
      const message = (error as Error).message;
      throw new HttpError(
        400,
        `payload ${i}: ${message === 'invalid encoding' ? 'a bytes field is not base64' : message}`,
      );
    }
  });
  return { payloads, originals: list };
}
