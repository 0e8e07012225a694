/**
 * The MCP servers `run` asks for: the worker's own by name (`--mcp-server`) and a config of the
 * run's own (`--mcp FILE`, sent with the run as written). With a config file, the one the worker
 * reads too, a name it does not declare or a config it does not take is a usage error, and no run
 * starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { errorText } from '../common/error-text';
import type { McpServersConfig, ToolSelection } from '../contracts/tool-catalog';
import { cliConfigParts } from './cli-config';
import { mcpServersFrom, readMcpConfigFile } from '../tools/mcp/mcp-config';
import { runServerProblem } from '../tools/mcp/run-config-policy';
import { declaredMcp } from '../tools/mcp/worker-servers';
import { UsageError, usage } from './exit-codes';

async function runConfigOf(file: string): Promise<McpServersConfig> {
  const resolved = path.resolve(file);
  if (!fs.existsSync(resolved)) throw new UsageError(`--mcp file ${resolved} does not exist`);
  try {
    return await readMcpConfigFile(resolved);
  } catch (err) {
    throw new UsageError(errorText(err));
  }
}

/** `tools.mcpServers` and `tools.mcpConfig` of the run the flags describe, checked as far as the config file tells. */
export async function mcpSelectionOf(
  names: readonly string[] | undefined,
  file: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Pick<ToolSelection, 'mcpServers' | 'mcpConfig'>> {
  const mcpConfig = file ? await runConfigOf(file) : undefined;
  const parts = cliConfigParts(env);
  const source = parts[0]?.source;
  if (source) {
    const declared = usage(() => declaredMcp(parts));
    const known = declared.servers.map((s) => s.name);
    for (const name of names ?? [])
      if (!known.includes(name))
        throw new UsageError(
          `--mcp-server "${name}": ${source} declares no such MCP server; it declares: ${known.join(', ') || '(none)'}`,
        );
    if (mcpConfig && !declared.runConfigs)
      throw new UsageError(
        `--mcp: the worker's config ${source} takes no MCP config from runs (no "runMcpConfigs"); ` +
          'declare the servers under "mcpServers" there and pick them with --mcp-server NAME',
      );
    if (mcpConfig && declared.runConfigs) {
      const problem = runServerProblem(mcpServersFrom(mcpConfig, '--mcp'), declared.runConfigs);
      if (problem) throw new UsageError(`--mcp: ${problem}`);
    }
  }
  return {
    ...(names?.length ? { mcpServers: [...new Set(names)] } : {}),
    ...(mcpConfig ? { mcpConfig } : {}),
  };
}
