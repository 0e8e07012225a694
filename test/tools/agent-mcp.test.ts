import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reply } from '../../src/testing/fake-provider';
import { workerConfig } from '../../src/worker/worker-config';
import { agentFixture, anthropicMessages, PRIMARY, type AgentFixture } from '../agent/agent-kit';
import { runCli } from '../kit/cli';
import { testConnection, withWorker } from '../kit/temporal';
import { contextServerConfig } from '../kit/context-server';
import { startEverythingServer } from '../kit/everything-server';

describe("the worker's MCP servers serving an agent run on the Temporal server", () => {
  let fx: AgentFixture;
  let dir: string;
  /** The worker's config file, which the CLI reads too. */
  let configFile: string;
  let everything: Awaited<ReturnType<typeof startEverythingServer>>;

  beforeAll(async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'da-agent-mcp-')));
    everything = await startEverythingServer();
    configFile = path.join(dir, 'durable-agents.json');
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: {
          files: {
            command: process.execPath,
            args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), dir],
          },
          everything: { url: everything.url },
          ctx: contextServerConfig(),
        },
      }),
    );
    fx = await agentFixture({}, { mcp: () => workerConfig({ env: {}, file: configFile }).tools });
  });
  afterAll(async () => {
    await fx.close();
    await everything.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const cliEnv = async () => {
    const { address, namespace } = await testConnection();
    return { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_CONFIG: configFile };
  };

  it('serves a run started from the CLI with --mcp-server NAME', async () => {
    fx.fake.reset();
    const target = path.join(dir, 'from-cli.txt');
    fx.fake.script(
      reply.toolCalls([
        { name: 'write_file', arguments: { path: target, content: 'written via the CLI run' } },
        { name: 'echo', arguments: { message: 'cli' } },
      ]),
      reply.text('All done.'),
    );
    const env = await cliEnv();
    const cli = await withWorker({ activities: fx.activities }, ({ taskQueue }) =>
      runCli(
        [
          ...['run', '--model', PRIMARY, '--mcp-server', 'files', '--mcp-server', 'everything'],
          ...['--tools', 'write_file,echo', '--json', 'Write a file and echo.'],
        ],
        { env: { ...env, DURABLE_AGENTS_TASK_QUEUE: taskQueue } },
      ),
    );
    expect(cli.stderr).toMatch(/^run write-a-file-and-echo-[0-9a-f]{12} started on task queue "[^"]+"\n$/);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ status: 'completed', finalText: 'All done.' });
    expect(fs.readFileSync(target, 'utf8')).toBe('written via the CLI run');
    expect((fx.fake.requests[0].body.tools as { name: string }[]).map((t) => t.name).sort()).toEqual([
      'echo',
      'write_file',
    ]);
    const results = anthropicMessages(fx.fake.requests[1].body)
      .at(-1)!
      .blocks.filter((b) => b.type === 'tool_result')
      .map((b) => JSON.stringify(b.content));
    expect(results).toEqual([expect.stringContaining('Successfully wrote'), expect.stringContaining('Echo: cli')]);
  });

  it('refuses a name the config file does not declare before the run starts', async () => {
    const cli = await runCli(['run', '--model', PRIMARY, '--mcp-server', 'files', '--mcp-server', 'nope', 'x'], {
      env: await cliEnv(),
    });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toBe(
      `durable-agents: --mcp-server "nope": ${configFile} declares no such MCP server; it declares: files, everything, ctx\n`,
    );
  });

  it('serves a run that names servers of its worker, routing each call to its server with the context in _meta', async () => {
    fx.fake.reset();
    const target = path.join(dir, 'hello.txt');
    fx.fake.script(
      reply.toolCalls([
        { name: 'write_file', arguments: { path: target, content: 'written by the agent' } },
        { name: 'echo', arguments: { message: 'ping' } },
      ]),
      reply.toolCalls([
        { name: 'read_text_file', arguments: { path: target } },
        { name: 'whoami', arguments: {}, id: 'toolu_who' },
      ]),
      reply.text('Done.'),
    );
    const { result, runId } = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Write a file, echo, read it back.',
        model: PRIMARY,
        tools: {
          mcpServers: ['files', 'everything', 'ctx'],
          allow: ['write_file', 'read_text_file', 'echo', 'whoami'],
          context: { resourceId: 'doc-1', taskId: 'task-1' },
        },
      });
      const res = await agents.result(id);
      return { result: res, runId: (await client.workflow.getHandle(id).describe()).runId };
    });

    expect(result).toMatchObject({ status: 'completed', finalText: 'Done.' });
    expect(fs.readFileSync(target, 'utf8')).toBe('written by the agent');
    const offered = (fx.fake.requests[0].body.tools as { name: string }[]).map((t) => t.name).sort();
    expect(offered).toEqual(['echo', 'read_text_file', 'whoami', 'write_file']);
    const results = (turn: number) =>
      anthropicMessages(fx.fake.requests[turn].body)
        .at(-1)!
        .blocks.filter((b) => b.type === 'tool_result')
        .map((b) => JSON.stringify(b.content));
    expect(results(1)).toEqual([expect.stringContaining('Successfully wrote'), expect.stringContaining('Echo: ping')]);
    expect(results(2)).toEqual([expect.stringContaining('written by the agent'), expect.any(String)]);
    const content = JSON.parse(results(2)[1]) as string | { type: string; text: string }[];
    const whoami = JSON.parse(typeof content === 'string' ? content : content.map((b) => b.text).join('')) as {
      meta: Record<string, unknown>;
    };
    expect(whoami.meta).toMatchObject({
      currentResourceId: 'doc-1',
      currentTaskId: 'task-1',
      idempotencyKey: expect.stringMatching(new RegExp(`^${runId}:`)),
    });
  });
});
