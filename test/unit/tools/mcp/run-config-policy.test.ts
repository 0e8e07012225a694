import { runMcpPolicySchema, runServerProblem, urlAllowed } from '../../../../src/tools/mcp/run-config-policy';

describe("the URL list of a worker's opt-in for runs' MCP configs", () => {
  const allowed = ['https://mcp.example.com/team-a/', 'http://127.0.0.1:8931/mcp'];

  it.each([
    'https://mcp.example.com/team-a/',
    'https://mcp.example.com/team-a/mcp',
    'https://MCP.example.com:443/team-a/x?y=1',
    'http://127.0.0.1:8931/mcp',
    'http://127.0.0.1:8931/mcp/session',
  ])('allows %s', (url) => expect(urlAllowed(url, allowed)).toBe(true));

  it.each([
    ['another path', 'https://mcp.example.com/team-b/'],
    ['a path that only starts like it', 'http://127.0.0.1:8931/mcpx'],
    ['a path that climbs out', 'https://mcp.example.com/team-a/../team-b/'],
    ['an encoded climb', 'https://mcp.example.com/team-a/%2e%2e/team-b/'],
    ['another port', 'http://127.0.0.1:8932/mcp'],
    ['another scheme', 'http://mcp.example.com/team-a/'],
    ['another host behind userinfo', 'https://mcp.example.com@evil.example/team-a/'],
    ['a host that only ends like it', 'https://evilmcp.example.com/team-a/'],
    ['no URL at all', 'not a url'],
  ])('refuses %s', (_, url) => expect(urlAllowed(url, allowed)).toBe(false));

  it('allows a whole origin given as its root', () => {
    expect(urlAllowed('https://mcp.example.com/any/path', ['https://mcp.example.com'])).toBe(true);
  });
});

describe("the check of a run's MCP servers against the opt-in", () => {
  const policy = { urls: ['https://mcp.example.com/'], commands: ['/opt/mcp/notes'] };

  it('passes listed URLs and commands, whatever the arguments', () => {
    expect(
      runServerProblem(
        [
          { name: 'a', config: { url: 'https://mcp.example.com/mcp' } },
          { name: 'b', config: { command: '/opt/mcp/notes', args: ['--any'] } },
        ],
        policy,
      ),
    ).toBeUndefined();
  });

  it('names the first server it refuses, in one line', () => {
    expect(runServerProblem([{ name: 'x', config: { command: 'sh', args: ['-c', 'id'] } }], policy)).toBe(
      'This worker does not start the command "sh" of the run\'s MCP server "x"; commands runs may start: /opt/mcp/notes.',
    );
    expect(runServerProblem([{ name: 'y', config: { url: 'https://evil.example/' } }], policy)).toBe(
      'This worker does not connect to https://evil.example/ of the run\'s MCP server "y"; URLs runs may use: ' +
        'https://mcp.example.com/.',
    );
  });

  it('leaves the refused value out for a config read from a file', () => {
    expect(runServerProblem([{ name: 'y', config: { url: 'https://evil.example/' } }], policy, false)).toBe(
      'This worker does not connect to the URL of the run\'s MCP server "y"; URLs runs may use: https://mcp.example.com/.',
    );
  });

  it('reads the opt-in with empty lists by default and refuses a URL that is not http(s)', () => {
    expect(runMcpPolicySchema.parse({})).toEqual({ urls: [], commands: [] });
    expect(runMcpPolicySchema.safeParse({ urls: ['file:///etc/'] }).success).toBe(false);
    expect(runMcpPolicySchema.safeParse({ command: ['npx'] }).success).toBe(false);
    expect(runMcpPolicySchema.parse({ configDir: 'cfg' }).configDir).toBe(`${process.cwd()}/cfg`);
  });
});
