/**
 * The MCP servers one run uses: those of the worker's own that it names (`tools.mcpServers`), and,
 * only when the worker opts in (`runMcpConfigs`), those of its own config, taken as written and
 * checked against the worker's lists. Every refusal is one line and starts nothing.
 */
import type { ToolSelection } from '../../contracts/tool-catalog';
import { McpConfigError, mcpServersFrom, type NamedMcpServer } from './mcp-config';
import { readRunMcpConfig } from './run-config-file';
import { runServerProblem, type RunMcpPolicy } from './run-config-policy';

/** What a worker offers runs: its operator's servers (`${VAR}` already expanded) and the opt-in for runs' own. */
export interface WorkerMcpServers {
  servers: readonly NamedMcpServer[];
  runConfigs?: RunMcpPolicy;
}

const CHOOSE_BY_NAME =
  'runs name the servers of the worker\'s config ("mcpServers") in tools.mcpServers (--mcp-server)';

function ownServers(names: unknown, worker: WorkerMcpServers): NamedMcpServer[] {
  if (names === undefined) return [];
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string'))
    throw new McpConfigError('tools.mcpServers must be a list of MCP server names.');
  const known = worker.servers.map((s) => s.name);
  return [...new Set(names as string[])].map((name) => {
    const server = worker.servers.find((s) => s.name === name);
    if (!server)
      throw new McpConfigError(
        `This worker has no MCP server "${name}"; its servers: ${known.join(', ') || '(none declared)'}.`,
      );
    return server;
  });
}

/** The servers of the run's own config, each allowed by the worker's opt-in; none when the run brings none. */
async function runSuppliedServers(
  selection: ToolSelection,
  policy: RunMcpPolicy | undefined,
): Promise<NamedMcpServer[]> {
  const { mcpConfig, mcpConfigPath } = selection;
  if (!mcpConfig && !mcpConfigPath) return [];
  const field = mcpConfig ? 'tools.mcpConfig' : 'tools.mcpConfigPath';
  if (!policy)
    throw new McpConfigError(
      `This worker takes no MCP config from runs (${field}); ${CHOOSE_BY_NAME}, ` +
        'or its operator opts in with "runMcpConfigs".',
    );
  let servers: NamedMcpServer[];
  if (mcpConfig) servers = mcpServersFrom(mcpConfig, "the run's MCP config");
  else if (!policy.configDir)
    throw new McpConfigError(
      'This worker reads no MCP config file a run names (tools.mcpConfigPath): its "runMcpConfigs" has no "configDir".',
    );
  else servers = await readRunMcpConfig(String(mcpConfigPath), policy.configDir);
  const problem = runServerProblem(servers, policy, mcpConfig !== undefined);
  if (problem) throw new McpConfigError(problem);
  return servers.map((s) => ({ ...s, fromRun: true }));
}

/** The servers a run's tool selection names, refused with one line when the worker does not allow one. */
export async function serversOfRun(selection: ToolSelection, worker: WorkerMcpServers): Promise<NamedMcpServer[]> {
  const own = ownServers(selection.mcpServers, worker);
  const brought = await runSuppliedServers(selection, worker.runConfigs);
  const clash = brought.find((s) => own.some((o) => o.name === s.name));
  if (clash)
    throw new McpConfigError(
      `The run's MCP server "${clash.name}" has the name of one of the worker's; rename it in the run's config.`,
    );
  return [...own, ...brought];
}
