import { McpConfigError } from '../../../../src/tools';
import { declaredMcp } from '../../../../src/tools/mcp/worker-servers';

describe("the MCP servers of a worker's config", () => {
  const file = {
    source: '/etc/agents/durable-agents.json',
    raw: {
      mcpServers: {
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'] },
        search: { url: 'https://search.example/mcp', headers: { Authorization: 'Bearer ${SEARCH_TOKEN}' } },
        old: { command: 'old-server', disabled: true },
      },
    },
  };

  it("expands the operator's ${VAR} from the worker's environment and hands each value over as a secret", () => {
    const secrets: string[] = [];
    const { servers, runConfigs } = declaredMcp([file], {
      env: { SEARCH_TOKEN: 't0k3n' },
      onSecret: (v) => secrets.push(v),
    });
    expect(servers.map((s) => s.name)).toEqual(['files', 'search']);
    expect(servers[1].config).toEqual({
      url: 'https://search.example/mcp',
      headers: { Authorization: 'Bearer t0k3n' },
    });
    expect(secrets).toEqual(['t0k3n']);
    expect(runConfigs).toBeUndefined();
  });

  it('keeps values as written when it only lists the names (the CLI)', () => {
    expect(declaredMcp([file]).servers[1].config).toMatchObject({
      headers: { Authorization: 'Bearer ${SEARCH_TOKEN}' },
    });
  });

  it('refuses a variable the environment lacks, naming the file, the server and the variable', () => {
    expect(() => declaredMcp([file], { env: {} })).toThrow(
      '/etc/agents/durable-agents.json: server "search" header "Authorization" refers to ${SEARCH_TOKEN}, which is ' +
        "not set in the worker's environment.",
    );
  });

  it('lets an inline config replace servers by name and the opt-in as a whole', () => {
    const inline = {
      source: 'inline config',
      raw: {
        mcpServers: { files: { url: 'https://files.example/' } },
        runMcpConfigs: { urls: ['https://x.example/'] },
      },
    };
    const first = { ...file, raw: { ...file.raw, runMcpConfigs: { commands: ['/opt/mcp/notes'] } } };
    const { servers, runConfigs } = declaredMcp([first, inline]);
    expect(servers.map((s) => [s.name, s.config])).toEqual([
      ['search', expect.anything()],
      ['files', { url: 'https://files.example/' }],
    ]);
    expect(runConfigs).toEqual({ urls: ['https://x.example/'], commands: [] });
  });

  it('refuses sections it cannot use, naming the field and the file', () => {
    expect(() => declaredMcp([{ source: 'cfg.json', raw: { mcpServers: { x: { args: [] } } } }])).toThrow(
      McpConfigError,
    );
    expect(() => declaredMcp([{ source: 'cfg.json', raw: { runMcpConfigs: { urls: ['ftp://h/'] } } }])).toThrow(
      /^Invalid "runMcpConfigs" in cfg\.json:/,
    );
  });
});
