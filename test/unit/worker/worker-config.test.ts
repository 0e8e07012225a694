import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SetupError } from '../../../src/connection/setup-error';
import { workerConfig } from '../../../src/worker/worker-config';

describe("the worker's config of its MCP servers", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'worker-config-')));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the servers of the config file, and redacts every value they take from the environment', () => {
    const file = path.join(dir, 'durable-agents.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { notes: { command: 'notes-server', env: { NOTES_TOKEN: '${NOTES_TOKEN}' } } },
        runMcpConfigs: { urls: ['https://mcp.example.com/'], configDir: dir },
      }),
    );
    const config = workerConfig({ env: { NOTES_TOKEN: 'notes-s3cret-value' }, file });
    expect(config.tools.mcpServers).toEqual([
      { name: 'notes', config: { command: 'notes-server', args: [], env: { NOTES_TOKEN: 'notes-s3cret-value' } } },
    ]);
    expect(config.tools.runMcpConfigs).toEqual({ urls: ['https://mcp.example.com/'], commands: [], configDir: dir });
    expect(config.secrets.redact('token notes-s3cret-value')).toBe('token [redacted]');
  });

  it('takes no run config and declares no server by default', () => {
    const { tools } = workerConfig({ env: {}, file: null });
    expect(tools.mcpServers).toEqual([]);
    expect(tools.runMcpConfigs).toBeUndefined();
  });

  it('refuses to start with DURABLE_AGENTS_MCP_COMMANDS, saying what replaced it', () => {
    const start = () => workerConfig({ env: { DURABLE_AGENTS_MCP_COMMANDS: 'npx,uvx' }, file: null });
    expect(start).toThrow(SetupError);
    expect(start).toThrow(
      /^DURABLE_AGENTS_MCP_COMMANDS is no longer read: declare the worker's MCP servers under "mcpServers" .*"runMcpConfigs": \{ "commands": \[\.\.\.\] \}/,
    );
  });

  it('refuses a config directory that does not exist, and a server whose variable is not set', () => {
    const missing = path.join(dir, 'no-such-dir');
    expect(() => workerConfig({ env: {}, file: null, inline: { runMcpConfigs: { configDir: missing } } })).toThrow(
      `runMcpConfigs.configDir ${missing} is not a directory.`,
    );
    expect(() =>
      workerConfig({
        env: {},
        file: null,
        inline: { mcpServers: { x: { url: 'https://h/', headers: { A: '${B}' } } } },
      }),
    ).toThrow(SetupError);
  });
});
