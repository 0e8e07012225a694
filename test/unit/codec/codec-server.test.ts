import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startCodecServer, type RunningCodecServer } from '../../../src/codec';
import { FileContentStore } from '../../../src/store';
import { jsonPayload, post, rawPayload, valueOf } from '../../kit/codec';

const UI = 'http://localhost:8233';

describe('codec server over real HTTP', () => {
  let dir: string;
  let store: FileContentStore;
  let server: RunningCodecServer;
  const hashes: Record<string, string> = {};

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codec-'));
    store = new FileContentStore(path.join(dir, 'store'));
    hashes.assistant = await store.put({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The user wants a sum.' },
        { type: 'text', text: 'Adding them now.' },
        { type: 'toolCall', id: 'toolu_1', name: 'add', arguments: { a: 2, b: 3 } },
      ],
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      stopReason: 'toolUse',
      timestamp: 1,
    });
    hashes.toolResult = await store.put({
      role: 'toolResult',
      toolCallId: 'toolu_1',
      toolName: 'add',
      content: [{ type: 'text', text: 'The sum is 5.' }],
      isError: false,
      timestamp: 2,
    });
    hashes.summary = await store.put({ role: 'summary', text: 'Earlier: the user greeted.', timestamp: 3 });
    hashes.specs = await store.put([{ name: 'add', description: 'Adds two numbers.', parameters: {} }]);
    hashes.prompt = await store.put({ systemPrompt: 'You are the planner.' });
    server = await startCodecServer({ port: 0, store });
  });
  afterAll(async () => {
    await server.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const unknownHash = 'f'.repeat(64);

  it('decodes each reference into its body beside it, and encodes as the identity', async () => {
    const callModelOutput = {
      meta: { seq: 1, kind: 'assistant', hash: hashes.assistant, tokens: 12 },
      text: 'Adding them now.',
    };
    const callModelInput = {
      conversationId: 'c1',
      view: { fromSeq: 4, summaryHash: hashes.summary, summaryTokens: 9 },
      toolSpecsHash: hashes.specs,
      promptHash: hashes.prompt,
    };
    const metas = [
      { seq: 2, kind: 'toolResult', hash: hashes.toolResult, tokens: 5, toolCallId: 'toolu_1' },
      { seq: 3, kind: 'toolResult', hash: unknownHash, tokens: 5 },
    ];
    const pev = { fromHash: hashes.toolResult, ledger: { k: { resultHash: hashes.toolResult } } };
    const sent = [jsonPayload(callModelOutput), jsonPayload(callModelInput), jsonPayload(metas), jsonPayload(pev)];

    const decoded = await post(`${server.url}/decode`, { payloads: sent }, { 'X-Namespace': 'default' });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('content-type')).toBe('application/json');
    const [output, input, list, reuse] = decoded.payloads.map(valueOf);
    expect(output.meta).toEqual({
      ...callModelOutput.meta,
      body: expect.objectContaining({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The user wants a sum.' },
          { type: 'text', text: 'Adding them now.' },
          { type: 'toolCall', id: 'toolu_1', name: 'add', arguments: { a: 2, b: 3 } },
        ],
      }),
    });
    // Bodies come first, so a one-line preview (the Web UI's timeline) shows text rather than a hash.
    expect(Object.keys(output.meta as object)).toEqual(['body', 'seq', 'kind', 'hash', 'tokens']);
    expect(Object.keys(input)).toEqual([
      'toolSpecsBody',
      'promptBody',
      'conversationId',
      'view',
      'toolSpecsHash',
      'promptHash',
    ]);
    expect(Object.keys(input.view as object)).toEqual(['summaryBody', 'fromSeq', 'summaryHash', 'summaryTokens']);
    expect(input.view).toEqual({
      ...callModelInput.view,
      summaryBody: { role: 'summary', text: 'Earlier: the user greeted.', timestamp: 3 },
    });
    expect(input.toolSpecsHash).toBe(hashes.specs);
    expect(input.toolSpecsBody).toEqual([{ name: 'add', description: 'Adds two numbers.', parameters: {} }]);
    expect(input.promptBody).toEqual({ systemPrompt: 'You are the planner.' });
    expect(list).toEqual([
      { ...metas[0], body: expect.objectContaining({ content: [{ type: 'text', text: 'The sum is 5.' }] }) },
      { ...metas[1], bodyMissing: 'not in the content store' },
    ]);
    expect(reuse.fromBody).toMatchObject({ toolName: 'add' });
    expect((reuse.ledger as { k: Record<string, unknown> }).k.resultBody).toMatchObject({ toolCallId: 'toolu_1' });
    for (const payload of decoded.payloads) expect(payload.metadata).toEqual(sent[0].metadata);

    const encoded = await post(`${server.url}/encode`, { payloads: decoded.payloads });
    expect(encoded.status).toBe(200);
    expect(encoded.payloads).toEqual(decoded.payloads);
  });

  it('answers under /{namespace}/ as the CLI templates it, and nowhere else', async () => {
    const payload = jsonPayload({ seq: 0, kind: 'toolResult', hash: hashes.toolResult, tokens: 5 });
    const decoded = await post(`${server.url}/my-namespace/decode`, { payloads: [payload] });
    expect(decoded.status).toBe(200);
    expect(valueOf(decoded.payloads[0]).body).toMatchObject({ toolName: 'add' });
    expect((await post(`${server.url}/my-namespace/encode`, { payloads: [payload] })).payloads).toEqual([payload]);
    const elsewhere = await post(`${server.url}/a/b/decode`, { payloads: [] });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.text).toMatch(/^not found: POST \/decode or \/encode.*\n$/);
    const get = await fetch(`${server.url}/decode`);
    expect(get.status).toBe(405);
  });

  it('passes payloads it does not understand through unchanged', async () => {
    const sent = [
      rawPayload('binary/plain', Buffer.from([0, 1, 2, 250])),
      rawPayload('binary/null'),
      rawPayload('json/protobuf', Buffer.from('{"hash":"x"}')),
      rawPayload('json/plain', Buffer.from('{not json')),
      jsonPayload({ hash: hashes.toolResult, note: 'no seq: not a message reference' }),
      { ...jsonPayload({ plain: true }), externalPayloads: [{ sizeBytes: '5' }] },
    ];
    const decoded = await post(`${server.url}/decode`, { payloads: sent });
    expect(decoded.status).toBe(200);
    expect(decoded.payloads).toEqual(sent);
    expect(await post(`${server.url}/decode`, {})).toMatchObject({ status: 200, payloads: [] });
  });

  it('answers CORS, preflight included, only for the configured UI origins', async () => {
    const payloads = [jsonPayload({ a: 1 })];
    const allowed = await post(`${server.url}/decode`, { payloads }, { Origin: UI });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI);
    const other = await post(`${server.url}/decode`, { payloads }, { Origin: 'http://127.0.0.1:8233' });
    expect(other.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8233');

    const denied = await post(`${server.url}/decode`, { payloads }, { Origin: 'https://evil.example' });
    expect(denied.status).toBe(403);
    expect(denied.headers.get('access-control-allow-origin')).toBeNull();
    expect(denied.text).toBe(
      'origin https://evil.example is not allowed: start the codec server with --origin https://evil.example\n',
    );

    const preflight = (origin: string) =>
      fetch(`${server.url}/default/decode`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type,x-namespace,authorization',
        },
      });
    const ok = await preflight(UI);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(UI);
    expect(ok.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(ok.headers.get('access-control-allow-headers')?.toLowerCase()).toBe(
      'content-type, x-namespace, authorization',
    );
    const refused = await preflight('http://localhost:9999');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses bodies over the size cap (413) and malformed JSON or base64 (400), each with a one-line reason', async () => {
    const small = await startCodecServer({ port: 0, store, maxBodyBytes: 1024 });
    try {
      const big = { payloads: [jsonPayload({ text: 'x'.repeat(2000) })] };
      const declared = await post(`${small.url}/decode`, big);
      expect(declared.status).toBe(413);
      expect(declared.text).toBe('request body over 1024 bytes: send fewer payloads per request\n');
      const chunked = await postChunked(`${small.url}/decode`, JSON.stringify(big));
      expect(chunked).toEqual({ status: 413, text: 'request body over 1024 bytes: send fewer payloads per request\n' });
      expect((await post(`${small.url}/decode`, { payloads: [jsonPayload({ a: 1 })] })).status).toBe(200);
    } finally {
      await small.close();
    }
    const cases: [unknown, RegExp][] = [
      ['{"payloads": [', /^the body is not JSON: /],
      ['', /^the body is not JSON: /],
      [[1, 2], /^the body must be a JSON object \{"payloads": \[\.\.\.\]\}$/],
      [{ payloads: {} }, /^"payloads" must be an array$/],
      [{ payloads: [jsonPayload({}), 'x'] }, /^payload 1 is not an object$/],
      [
        { payloads: [{ metadata: { encoding: 'anNvbi9wbGFpbg==' }, data: '%%%' }] },
        /^payload 0: a bytes field is not base64$/,
      ],
      [{ payloads: [{ data: 5 }] }, /^payload 0: .*expected base64 string/],
    ];
    for (const [body, reason] of cases) {
      const response = await post(`${server.url}/decode`, body);
      expect(response.status).toBe(400);
      expect(response.text.split('\n')).toEqual([expect.stringMatching(reason), '']);
    }
  });
});

/** POSTs `text` with chunked transfer encoding (no Content-Length), as a streaming client would. */
function postChunked(url: string, text: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: body }));
    });
    request.on('error', reject);
    for (let i = 0; i < text.length; i += 256) request.write(text.slice(i, i + 256));
    request.end();
  });
}
