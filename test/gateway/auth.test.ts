import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { HttpAgent } from '@ag-ui/client';
import { Role } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { AGENT_SEARCH_ATTRIBUTES } from '../../src/contracts/search-attributes';
import type { ApiKeyEntry } from '../../src/gateway';
import { reply } from '../../src/testing/fake-provider';
import { useAgentFixture } from '../agent/agent-kit';
import { withGateway } from './gateway-kit';

const CANARY = `canary-${crypto.randomBytes(12).toString('hex')}`;
const NARROW = `narrow-${crypto.randomBytes(12).toString('hex')}`;
const LIMITED = `limited-${crypto.randomBytes(12).toString('hex')}`;
const sha = (key: string) => crypto.createHash('sha256').update(key).digest('hex');
const KEYS: ApiKeyEntry[] = [
  { name: 'acme-app', sha256: sha(CANARY), tenant: 'acme', agents: ['reader'] },
  { name: 'other-only', sha256: sha(NARROW), tenant: 'acme', agents: ['other'] },
  { name: 'limited', sha256: sha(LIMITED), tenant: 'acme', requestsPerMinute: 2 },
];

const openai = (url: string, apiKey: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 });
const agUi = (url: string, key?: string) =>
  new HttpAgent({ url: `${url}/ag-ui/reader`, headers: key ? { Authorization: `Bearer ${key}` } : {} });
const runInput = {
  threadId: 't',
  runId: 'r-denied',
  messages: [{ id: 'u', role: 'user' as const, content: 'hi' }],
  tools: [],
  context: [],
};

function ended(observable: { subscribe(o: object): unknown }): Promise<unknown> {
  return new Promise((resolve) =>
    observable.subscribe({ next: () => undefined, error: resolve, complete: () => resolve('completed') }),
  );
}

async function mcp(url: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'auth-test', version: '1.0.0' });
  const headers = key ? { Authorization: `Bearer ${key}` } : undefined;
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), headers ? { requestInit: { headers } } : {}),
  );
  return client;
}

describe('who may call the gateway', () => {
  const fx = useAgentFixture();

  it("refuses no key, a wrong key, another agent's key and a key over its limit with each protocol's error, starting nothing", async () => {
    fx.fake.script(reply.text('Hello from reader.'));
    const lines: string[] = [];
    await withGateway(fx, { keys: KEYS, log: (l) => lines.push(l) }, async (gateway, agents) => {
      const url = gateway.url;
      // Open Responses: the SDK's typed errors.
      await expect(openai(url, 'wrong').responses.create({ model: 'reader', input: 'hi' })).rejects.toMatchObject({
        status: 401,
        code: 'invalid_api_key',
      });
      await expect(openai(url, NARROW).responses.create({ model: 'reader', input: 'hi' })).rejects.toMatchObject({
        status: 403,
      });
      const limited = openai(url, LIMITED);
      await expect(limited.responses.retrieve('reader:none')).rejects.toMatchObject({ status: 404 });
      await expect(limited.responses.retrieve('reader:none')).rejects.toMatchObject({ status: 404 });
      await expect(limited.responses.create({ model: 'reader', input: 'hi' })).rejects.toMatchObject({
        status: 429,
        code: 'rate_limit_exceeded',
      });
      // AG-UI: the HTTP status ends the client's run with an error.
      expect(String(await ended(agUi(url).run(runInput)))).toMatch(/401/);
      expect(String(await ended(agUi(url, NARROW).run(runInput)))).toMatch(/403/);
      // MCP: the SDK client cannot connect without a key; another agent's key does not list or call it.
      await expect(mcp(url)).rejects.toMatchObject({
        code: 401,
        message: expect.stringMatching(/API key is required/),
      });
      const narrow = await mcp(url, NARROW);
      expect((await narrow.listTools()).tools.map((t) => t.name)).toEqual(['other']);
      await expect(narrow.callTool({ name: 'reader', arguments: { task: 'hi' } })).rejects.toThrow(/may not run/);
      await narrow.close();
      // A2A: the card is public; a message without a key is refused.
      const a2a = await new ClientFactory().createFromUrl(url);
      const message = {
        messageId: 'm1',
        contextId: '',
        taskId: '',
        role: Role.ROLE_USER,
        parts: [
          {
            content: { $case: 'text' as const, value: 'hi' },
            metadata: undefined,
            filename: '',
            mediaType: 'text/plain',
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      await expect(
        a2a.sendMessage({ tenant: '', message, configuration: undefined, metadata: { skill: 'reader' } }),
      ).rejects.toThrow(/401|API key/);
      expect(fx.fake.requests).toHaveLength(0);

      // The one allowed call runs for the key's tenant, and is the only run on the queue.
      const done = await openai(url, CANARY).responses.create({ model: 'reader', input: 'Say hello.' });
      expect(done.output_text).toBe('Hello from reader.');
      await expect(openai(url, NARROW).responses.retrieve(done.id)).rejects.toMatchObject({ status: 403 });
      const described = await agents.client.workflow.getHandle(done.id).describe();
      expect(described.typedSearchAttributes.get(AGENT_SEARCH_ATTRIBUTES.tenant)).toBe('acme');
      let ids: string[] = [];
      for (let i = 0; i < 50; i++) {
        ids = [];
        for await (const w of agents.client.workflow.list({ query: `TaskQueue = "${agents.taskQueue}"` }))
          ids.push(w.workflowId);
        if (ids.length > 0) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(ids).toEqual([done.id]);

      // The canary key is in no history, no stored message, no request to the model and no log line.
      const history = JSON.stringify(await agents.client.workflow.getHandle(done.id).fetchHistory());
      expect(history).not.toContain(CANARY);
      expect(history).not.toContain(sha(CANARY));
      expect(JSON.stringify(fx.fake.requests)).not.toContain(CANARY);
      for (const file of fs.readdirSync(fx.store.root, { recursive: true }) as string[]) {
        const full = path.join(fx.store.root, file);
        if (fs.statSync(full).isFile()) expect(fs.readFileSync(full, 'utf8')).not.toContain(CANARY);
      }
      expect(lines.join('\n')).not.toContain(CANARY);
    });
  });
});
