import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REDACTED, startCodecServer } from '../../../src/codec';
import { FileContentStore } from '../../../src/store';
import { workerConfig } from '../../../src/worker/worker-config';
import { jsonPayload, post, rawPayload, valueOf } from '../../kit/codec';

describe('codec server redaction', () => {
  it('never returns the value of a provider key variable, built-in or named in durable-agents.json', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codec-redact-'));
    const builtin = 'sk-ant-canary-7f3a9c2e5b1d';
    const configured = 'acme-canary-key-4242-zz';
    const configFile = path.join(dir, 'durable-agents.json');
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        providers: { acme: { api: 'openai', baseUrl: 'http://127.0.0.1:1/v1', apiKeyEnv: 'ACME_SECRET' } },
      }),
    );
    const env = { ANTHROPIC_API_KEY: builtin, ACME_SECRET: configured, DURABLE_AGENTS_CONFIG: configFile };
    const store = new FileContentStore(path.join(dir, 'store'));
    const leaked = `the key was ${builtin}, the other ${configured}.`;
    const hash = await store.put({
      role: 'toolResult',
      toolCallId: 'toolu_1',
      toolName: 'env_dump',
      content: [{ type: 'text', text: leaked }],
      isError: false,
      timestamp: 1,
    });
    const server = await startCodecServer({ port: 0, store, secrets: workerConfig({ env }).secrets.list() });
    try {
      const sent = [
        jsonPayload({ meta: { seq: 0, kind: 'toolResult', hash, tokens: 9 } }),
        jsonPayload({ note: `inline ${builtin}` }),
        rawPayload('binary/plain', Buffer.from(`\u0000${configured}\u0001`)),
      ];
      const response = await post(`${server.url}/decode`, { payloads: sent });
      expect(response.status).toBe(200);
      const bytes = response.payloads.map((p) => Buffer.from(p.data ?? '', 'base64').toString('latin1'));
      for (const text of [response.text, ...bytes]) {
        expect(text).not.toContain(builtin);
        expect(text).not.toContain(configured);
      }
      const meta = valueOf(response.payloads[0]).meta as { body: { content: { text: string }[] } };
      expect(meta.body.content[0].text).toBe(`the key was ${REDACTED}, the other ${REDACTED}.`);
      expect(valueOf(response.payloads[1])).toEqual({ note: `inline ${REDACTED}` });
      expect(bytes[2]).toBe(`\u0000${REDACTED}\u0001`);
    } finally {
      await server.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
