/**
 * Two hosts, one run: two worker processes that share only Temporal and the store. A run starts
 * on worker A, A dies (SIGKILL) while a tool runs, and worker B finishes the run. With the
 * PostgreSQL store B has the whole conversation; with the file store (each worker its own disk)
 * the run fails with an error that says why and what to do.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentClient } from '../../src/client';
import { fakeProviderEnv, reply, startFakeProvider, type FakeProvider } from '../../src/testing/fake-provider';
import { PostgresContentStore } from '../../src/store';
import { anthropicMessages, PRIMARY } from '../agent/agent-kit';
import { createTestDatabase } from '../kit/postgres';
import { testConnection } from '../kit/temporal';
import { startWorkerProcess, type WorkerProcess } from '../kit/worker-process';

const REPO_ROOT = path.resolve(__dirname, '../..');

/** A stdio MCP server whose `slow_step` with step "long" works for SLOW_SECONDS (it exits when its worker dies). */
const SLOW_SERVER = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
process.stdin.on('close', () => process.exit(0));
const seconds = Number(process.env.SLOW_SECONDS || '0');
const server = new McpServer({ name: 'slow', version: '1.0.0' });
server.registerTool('slow_step', { description: 'Does one step of the work', inputSchema: { step: z.string() } }, async ({ step }) => {
  if (step === 'long') await new Promise((r) => setTimeout(r, seconds * 1000));
  return { content: [{ type: 'text', text: 'step ' + step + ' done by worker pid ' + process.ppid }] };
});
await server.connect(new StdioServerTransport());
`;

/** Each host's config file: the worker's own MCP server, which runs pick by name. */
const hostConfig = {
  mcpServers: {
    slow: {
      command: process.execPath,
      args: ['--input-type=module', '-e', SLOW_SERVER],
      cwd: REPO_ROOT,
      env: { SLOW_SECONDS: '${SLOW_SECONDS}' },
    },
  },
};

describe('two worker hosts, one run', () => {
  let fake: FakeProvider;
  let dir: string;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    fake = await startFakeProvider();
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'two-hosts-'));
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterAll(async () => fake.close());

  /** Host directories and the run: A works until the long tool step, dies, then B starts. */
  async function runAcrossHosts(storeUrl: string) {
    const { client } = await testConnection();
    const taskQueue = `two-hosts-${crypto.randomUUID()}`;
    const host = (name: string, slowSeconds: number) => {
      const cwd = path.join(dir, name);
      fs.mkdirSync(cwd);
      fs.writeFileSync(path.join(cwd, 'durable-agents.json'), JSON.stringify(hostConfig));
      return {
        cwd,
        env: {
          ...fakeProviderEnv(fake),
          DURABLE_AGENTS_STORE_DIR: path.join(cwd, 'store'),
          DURABLE_AGENTS_STORE_URL: storeUrl,
          SLOW_SECONDS: String(slowSeconds),
        },
      };
    };
    fake.reset();
    fake.script(
      reply.toolCalls([{ name: 'slow_step', arguments: { step: 'quick' } }]),
      reply.toolCalls([{ name: 'slow_step', arguments: { step: 'long' } }]),
      reply.text('All steps done.'),
    );
    const hostA = host('host-a', 120);
    const a = await startWorkerProcess({ taskQueue, ...hostA });
    workers.push(a);
    const agents = new AgentClient(client, taskQueue);
    const id = await agents.start({
      id: `two-hosts-${crypto.randomUUID()}`,
      task: 'Do the quick step, then the long step.',
      model: PRIMARY,
      tools: { allow: ['slow_step'], mcpServers: ['slow'] },
    });
    // Wait until A runs the long step, then take A away without a chance to drain.
    const handle = client.workflow.getHandle(id);
    for (const deadline = Date.now() + 45_000; ;) {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      const running = pending.some((p) => p.activityType?.name === 'runTool' && Number(p.state) === 2);
      if (running && fake.requests.length >= 2) break;
      if (Date.now() > deadline) throw new Error(`worker A never ran the long step: ${a.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await a.kill();
    const hostB = host('host-b', 0);
    workers.push(await startWorkerProcess({ taskQueue, ...hostB }));
    return { id, result: await agents.result(id), hostA, hostB };
  }

  it('continues on the other host with the whole conversation from PostgreSQL', async () => {
    const db = await createTestDatabase();
    try {
      const { id, result, hostA, hostB } = await runAcrossHosts(db.url);
      expect(result).toMatchObject({ status: 'completed', finalText: 'All steps done.' });
      const last = fake.requests.filter((r) => r.status === 200).at(-1)!;
      const messages = anthropicMessages(last.body);
      const text = JSON.stringify(messages);
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(text).toContain('Do the quick step, then the long step.');
      const pids = [...text.matchAll(/step (quick|long) done by worker pid (\d+)/g)].map((m) => [m[1], m[2]]);
      expect(pids.map((p) => p[0])).toEqual(['quick', 'long']);
      // The quick step ran on A, the long one on B: B read A's part of the conversation.
      expect(pids[0][1]).not.toBe(pids[1][1]);
      // Nothing of the conversation is on either host's disk.
      for (const host of [hostA, hostB]) expect(fs.existsSync(path.join(host.cwd, 'store', 'logs'))).toBe(false);
      const store = await PostgresContentStore.open(db.url);
      try {
        expect((await store.readLog(id)).entries.map((e) => e.kind)).toEqual([
          'user',
          'assistant',
          'tool_result',
          'assistant',
          'tool_result',
          'assistant',
        ]);
      } finally {
        await store.close();
      }
    } finally {
      for (const w of workers.splice(0)) await w.kill();
      await db.drop();
    }
  }, 150_000);

  it('fails with a clear error when each host has its own file store', async () => {
    const { result } = await runAcrossHosts('');
    expect(result.status).toBe('failed');
    expect(result.error?.message).toMatch(/does not have conversation|has no entry at position/);
    expect(result.error?.message).toContain('DURABLE_AGENTS_STORE_URL');
    expect(result.error?.message).toContain('shared volume');
  }, 150_000);
});
