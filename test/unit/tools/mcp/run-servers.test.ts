import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ToolSelection } from '../../../../src/contracts/tool-catalog';
import { McpConfigError } from '../../../../src/tools';
import { serversOfRun, type WorkerMcpServers } from '../../../../src/tools/mcp/run-servers';

/** Text that must never appear in an error: it stands for what a file on the worker holds. */
const CONTENT = 'content-canary-7d2f91';

describe('the MCP servers a run uses', () => {
  let dir: string;
  let configDir: string;
  const own: WorkerMcpServers['servers'] = [
    { name: 'files', config: { command: 'files-server', args: [] } },
    { name: 'search', config: { url: 'https://search.example/mcp', headers: { Authorization: 'Bearer s3cret' } } },
  ];
  const open = (): WorkerMcpServers => ({
    servers: own,
    runConfigs: { urls: ['https://mcp.example.com/'], commands: ['/opt/mcp/notes'], configDir },
  });
  const refusal = async (selection: ToolSelection, worker: WorkerMcpServers): Promise<string> => {
    const err = await serversOfRun(selection, worker).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpConfigError);
    const message = (err as Error).message;
    expect(message).not.toContain('\n');
    expect(message).not.toContain(CONTENT);
    return message;
  };

  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'run-servers-')));
    configDir = path.join(dir, 'configs');
    fs.mkdirSync(path.join(configDir, 'team'), { recursive: true });
    const write = (name: string, text: string) => fs.writeFileSync(path.join(configDir, name), text);
    write(
      'team/notes.json',
      JSON.stringify({ mcpServers: { notes: { command: '/opt/mcp/notes', env: { T: '${T}' } } } }),
    );
    write('not-json.json', `${CONTENT}: not json at all`);
    write('wrong-shape.json', JSON.stringify({ mcpServers: { [CONTENT]: { cmd: CONTENT } } }));
    write('off-list.json', JSON.stringify({ mcpServers: { x: { url: `https://${CONTENT}.example/` } } }));
    write('big.json', `{"pad": "${'x'.repeat(300 * 1024)}"}`);
    fs.writeFileSync(path.join(dir, 'outside.json'), `${CONTENT}`);
    fs.symlinkSync(path.join(dir, 'outside.json'), path.join(configDir, 'link.json'));
    fs.symlinkSync(dir, path.join(configDir, 'up'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("are the worker's own it names, and none when it names none", async () => {
    expect(await serversOfRun({}, open())).toEqual([]);
    expect(await serversOfRun({ mcpServers: ['search', 'search'] }, open())).toEqual([own[1]]);
  });

  it('refuses a name the worker does not declare, naming those it does', async () => {
    expect(await refusal({ mcpServers: ['nope'] }, open())).toBe(
      'This worker has no MCP server "nope"; its servers: files, search.',
    );
    expect(await refusal({ mcpServers: ['nope'] }, { servers: [] })).toBe(
      'This worker has no MCP server "nope"; its servers: (none declared).',
    );
    expect(await refusal({ mcpServers: 'files' as unknown as string[] }, open())).toBe(
      'tools.mcpServers must be a list of MCP server names.',
    );
  });

  it("refuses a run's own config when the worker does not opt in", async () => {
    const closed = { servers: own };
    expect(await refusal({ mcpConfig: { mcpServers: { x: { url: 'https://mcp.example.com/' } } } }, closed)).toMatch(
      /^This worker takes no MCP config from runs \(tools\.mcpConfig\); runs name the servers of the worker's config/,
    );
    expect(await refusal({ mcpConfigPath: 'team/notes.json' }, closed)).toMatch(
      /^This worker takes no MCP config from runs \(tools\.mcpConfigPath\)/,
    );
    expect(
      await refusal({ mcpConfigPath: 'team/notes.json' }, { servers: own, runConfigs: { urls: [], commands: [] } }),
    ).toBe(
      'This worker reads no MCP config file a run names (tools.mcpConfigPath): its "runMcpConfigs" has no "configDir".',
    );
  });

  it("takes an allowed config as written, beside the worker's own servers", async () => {
    const servers = await serversOfRun(
      {
        mcpServers: ['files'],
        mcpConfig: { mcpServers: { remote: { url: 'https://mcp.example.com/mcp', headers: { A: '${SECRET}' } } } },
      },
      open(),
    );
    expect(servers).toEqual([
      own[0],
      { name: 'remote', config: { url: 'https://mcp.example.com/mcp', headers: { A: '${SECRET}' } }, fromRun: true },
    ]);
    expect(await serversOfRun({ mcpConfigPath: 'team/notes.json' }, open())).toEqual([
      { name: 'notes', config: { command: '/opt/mcp/notes', args: [], env: { T: '${T}' } }, fromRun: true },
    ]);
    expect(await serversOfRun({ mcpConfigPath: path.join(configDir, 'team', 'notes.json') }, open())).toHaveLength(1);
  });

  it("refuses a run server that takes the name of one of the worker's", async () => {
    expect(
      await refusal(
        { mcpServers: ['search'], mcpConfig: { mcpServers: { search: { url: 'https://mcp.example.com/' } } } },
        open(),
      ),
    ).toBe("The run's MCP server \"search\" has the name of one of the worker's; rename it in the run's config.");
  });

  it.each([
    ['an absolute path elsewhere', '/etc/passwd'],
    ['a climb out of the directory', '../outside.json'],
    ['a symlink to a file outside', 'link.json'],
    ['a path through a symlinked directory', 'up/outside.json'],
    ['a path with a NUL byte', 'team/notes.json\u0000'],
  ])('reads no config path that is %s', async (_, configPath) => {
    expect(await refusal({ mcpConfigPath: configPath }, open())).toBe(
      `tools.mcpConfigPath "${configPath}" is refused: runs may name only files in the worker's MCP config directory.`,
    );
  });

  it('says what is wrong with a file in the directory without quoting it', async () => {
    expect(await refusal({ mcpConfigPath: 'missing.json' }, open())).toBe(
      'tools.mcpConfigPath "missing.json" is not a file in the worker\'s MCP config directory.',
    );
    expect(await refusal({ mcpConfigPath: 'not-json.json' }, open())).toBe(
      'tools.mcpConfigPath "not-json.json" is not valid JSON.',
    );
    expect(await refusal({ mcpConfigPath: 'wrong-shape.json' }, open())).toMatch(
      /^tools\.mcpConfigPath "wrong-shape\.json" is not a valid mcpServers config \(/,
    );
    expect(await refusal({ mcpConfigPath: 'off-list.json' }, open())).toBe(
      'This worker does not connect to the URL of the run\'s MCP server "x"; URLs runs may use: https://mcp.example.com/.',
    );
    expect(await refusal({ mcpConfigPath: 'big.json' }, open())).toBe(
      'tools.mcpConfigPath "big.json" is over 262144 bytes: not an MCP config.',
    );
    expect(await refusal({ mcpConfigPath: 'team' }, open())).toBe(
      'tools.mcpConfigPath "team" cannot be read (EISDIR).',
    );
  });
});
