/**
 * Secrets never leave the worker. A canary key sits in every provider config (the four built-in
 * providers and one the config file names, with a header of its own) and in both kinds of MCP
 * server the config file declares (a stdio server's env, an HTTP server's header), all taken from
 * the worker's environment.
 * They come back: the fake provider echoes the key in error bodies and headers, the model repeats
 * one in its answer (streamed to watchers), `server-everything`'s `get-env` prints its environment,
 * and an HTTP server refuses the MCP client with its Authorization header in the body (which fails
 * its run's first step, naming the server). The runs go
 * through a real worker process and the CLI; no canary may be found in the runs' histories, their
 * search attributes, the worker's log, the CLI's output or the content store.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { REDACTED } from '../../src/common/secrets';
import { reply, startFakeProvider, type FakeProvider } from '../../src/testing/fake-provider';
import { runCli, type CliResult } from '../kit/cli';
import { testConnection } from '../kit/temporal';
import { startWorkerProcess, type WorkerProcess } from '../kit/worker-process';

const CANARY = {
  anthropic: 'canary-anthropic-5f1c9e0a7b2d4c68',
  openai: 'canary-openai-8d3b6a1f0e9c2754',
  minimax: 'canary-minimax-2a7e5c9b1d0f4386',
  compatible: 'canary-compatible-6c0f3e8a2b5d1947',
  echoing: 'canary-echoing-9e4a1c7f3b0d6852',
  header: 'canary-header-3b8d0f6a9c1e5274',
  mcpEnv: 'canary-mcp-env-7a2c5e1b9d3f0468',
  mcpHeader: 'canary-mcp-header-0d6f2b8e4a1c9573',
};

/** Every string and every byte payload of a value (histories hold payloads as bytes). */
function textOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
  else if (Array.isArray(value)) for (const item of value) textOf(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) textOf(item, out);
  return out;
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

const canariesIn = (text: string): string[] =>
  Object.entries(CANARY)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => name);

/** An HTTP endpoint that refuses every request, echoing the Authorization header it got. */
async function startEchoingRefuser(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end(`forbidden for ${req.headers.authorization ?? 'nobody'}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('secrets never leave the worker', () => {
  let fake: FakeProvider;
  let refuser: Awaited<ReturnType<typeof startEchoingRefuser>>;
  let worker: WorkerProcess;
  let dir: string;
  const taskQueue = `canary-${process.pid}-${Date.now()}`;
  const cli: CliResult[] = [];

  beforeAll(async () => {
    fake = await startFakeProvider();
    refuser = await startEchoingRefuser();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canary-'));
    fs.writeFileSync(
      path.join(dir, 'durable-agents.json'),
      JSON.stringify({
        providers: {
          echoing: {
            api: 'openai',
            baseUrl: fake.openaiBaseUrl('/echoing'),
            apiKeyEnv: 'ECHOING_API_KEY',
            headers: { 'x-extra-secret': CANARY.header },
          },
        },
        mcpServers: {
          everything: {
            command: process.execPath,
            args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
            env: { SECRET_TOKEN: '${CANARY_MCP_ENV}' },
          },
          guarded: { url: refuser.url, headers: { Authorization: 'Bearer ${CANARY_MCP_HEADER}' } },
        },
      }),
    );
    worker = await startWorkerProcess({
      taskQueue,
      cwd: dir,
      env: {
        ANTHROPIC_API_KEY: CANARY.anthropic,
        ANTHROPIC_BASE_URL: fake.anthropicBaseUrl(),
        OPENAI_API_KEY: CANARY.openai,
        OPENAI_BASE_URL: fake.openaiBaseUrl(),
        MINIMAX_API_KEY: CANARY.minimax,
        MINIMAX_BASE_URL: fake.anthropicBaseUrl('/minimax'),
        OPENAI_COMPATIBLE_API_KEY: CANARY.compatible,
        OPENAI_COMPATIBLE_BASE_URL: fake.openaiBaseUrl('/compat'),
        ECHOING_API_KEY: CANARY.echoing,
        CANARY_MCP_ENV: CANARY.mcpEnv,
        CANARY_MCP_HEADER: CANARY.mcpHeader,
        DURABLE_AGENTS_STORE_DIR: path.join(dir, 'store'),
        DURABLE_AGENTS_LOG_LEVEL: 'DEBUG',
      },
    });
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await fake?.close();
    await refuser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** `durable-agents run` in a process of its own, without any key (the client never needs one). */
  async function run(...args: string[]): Promise<CliResult> {
    const { address, namespace } = await testConnection();
    const result = await runCli(['run', ...args], {
      cwd: dir,
      env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_TASK_QUEUE: taskQueue },
    });
    cli.push(result);
    return result;
  }

  it('keeps every key out of a run whose provider, model and tools all echo them', async () => {
    fake.script(
      reply.error(500, { echoKey: true, message: 'upstream broke' }),
      reply.toolCalls([{ name: 'get-env', arguments: {} }]),
      reply.text(`SECRET_TOKEN is ${CANARY.mcpEnv}; your key is ${CANARY.anthropic}, I am sure of it.`),
    );
    const { stdout, code } = await run(
      ...['--model', 'anthropic/claude-sonnet-4-6', '--mcp-server', 'everything', '--tools', 'get-env'],
      ...['--stream', '--json', 'Show me the environment.'],
    );
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ status: 'completed', finalText: expect.stringContaining(REDACTED) });
    // The key went to the provider and came back in its error body and a header.
    expect(JSON.stringify(fake.requests[0].headers)).toContain(CANARY.anthropic);
    expect(fake.requests.map((r) => r.status)).toEqual([500, 200, 200]);
  });

  it('keeps the key out of a run that fails on a provider echoing it in a 401', async () => {
    fake.script(reply.error(401, { echoKey: true, message: 'invalid key' }));
    const { stdout, stderr } = await run('--model', 'openai/gpt-4.1', '--json', 'Hello.');
    expect(`${stdout}${stderr}`).toContain(REDACTED);
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${CANARY.openai}`);
  });

  it('keeps the header of an MCP server that refuses it out of the failed run that names the server', async () => {
    const { stdout, code } = await run(
      ...['--model', 'openai/gpt-4.1', '--mcp-server', 'guarded', '--json', 'Use the tools.'],
    );
    expect(code).toBe(1);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ status: 'failed', stopReason: 'error' });
    expect(result.error.message).toContain('guarded');
    expect(result.error.message).toContain(`forbidden for Bearer ${REDACTED}`);
  });

  it('keeps the keys of a provider named in the config file out, its own header too', async () => {
    fake.script(reply.error(429, { echoKey: true, headers: { 'retry-after-ms': '100' } }), reply.text('Fine.'));
    const { stdout } = await run('--model', 'echoing/any-model', '--json', 'Hello.');
    expect(JSON.parse(stdout)).toMatchObject({ status: 'completed', finalText: 'Fine.' });
    const sent = fake.requests.at(-1)!;
    expect([sent.path, sent.headers.authorization, sent.headers['x-extra-secret']]).toEqual([
      '/echoing/v1/chat/completions',
      `Bearer ${CANARY.echoing}`,
      CANARY.header,
    ]);
  });

  it('finds no canary in histories, search attributes, the worker log, the CLI output or the store', async () => {
    const { client } = await testConnection();
    const query = `TaskQueue = '${taskQueue}'`;
    // Visibility follows the runs' ends by a moment.
    for (let tries = 0; (await client.workflow.count(query)).count < 4 && tries < 50; tries++)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const histories: string[] = [];
    const attributes: string[] = [];
    for await (const execution of client.workflow.list({ query })) {
      const handle = client.workflow.getHandle(execution.workflowId, execution.runId);
      histories.push(textOf(await handle.fetchHistory()).join('\n'));
      attributes.push(JSON.stringify((await handle.describe()).typedSearchAttributes));
    }
    expect(histories).toHaveLength(4);
    const store = filesUnder(path.join(dir, 'store'))
      .map((file) => fs.readFileSync(file, 'utf8'))
      .join('\n');
    const places = {
      histories: histories.join('\n'),
      searchAttributes: attributes.join('\n'),
      workerLog: worker.output(),
      cliOutput: cli.map((r) => `${r.stdout}\n${r.stderr}`).join('\n'),
      store,
    };
    expect(Object.fromEntries(Object.entries(places).map(([place, text]) => [place, canariesIn(text)]))).toEqual({
      histories: [],
      searchAttributes: [],
      workerLog: [],
      cliOutput: [],
      store: [],
    });
    // What was echoed reached those places, as the marker: the test saw the paths a key takes.
    for (const place of ['histories', 'workerLog', 'cliOutput', 'store'] as const)
      expect({ place, marked: places[place].includes(REDACTED) }).toEqual({ place, marked: true });
    // get-env's output (its SECRET_TOKEN) went to the store; the refusal echoing the header to the run's failure.
    expect(places.store).toMatch(/SECRET_TOKEN\\?": \\?"\[redacted\]/);
    // The answer that repeats a key streamed through the run's token stream, redacted there too.
    const streamed = filesUnder(path.join(dir, 'store', 'streams'))
      .flatMap((file) => fs.readFileSync(file, 'utf8').split('\n'))
      .flatMap((line) => (line.includes('"type":"piece"') ? [(JSON.parse(line) as { text: string }).text] : []))
      .join('');
    expect(streamed).toContain(`your key is ${REDACTED}`);
    expect(places.histories).toContain(`forbidden for Bearer ${REDACTED}`);
  });
});
