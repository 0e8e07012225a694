/**
 * A run's `tools.mcpConfigPath`: a file read on the worker, so only one under the directory its
 * operator names (`runMcpConfigs.configDir`), after every symlink is followed. No error quotes
 * what the file holds.
 */
import { PathRefusedError, readCapped, resolveInWorkspace } from '../builtin/jail';
import { McpConfigError, parseMcpConfig, type NamedMcpServer } from './mcp-config';

/** An MCP config is a few servers: anything larger is not one. */
const MAX_CONFIG_BYTES = 256 * 1024;

/** The servers of the config a run names by path (relative paths are under `configDir`), as written in it. */
export async function readRunMcpConfig(userPath: string, configDir: string): Promise<NamedMcpServer[]> {
  const where = `tools.mcpConfigPath "${userPath}"`;
  let file: string;
  try {
    file = await resolveInWorkspace(configDir, userPath);
  } catch (err) {
    if (err instanceof PathRefusedError)
      throw new McpConfigError(`${where} is refused: runs may name only files in the worker's MCP config directory.`);
    throw new McpConfigError(`${where} cannot be read: the worker's MCP config directory is not readable.`);
  }
  let text: string;
  try {
    const { data, size } = await readCapped(file, MAX_CONFIG_BYTES);
    if (size > MAX_CONFIG_BYTES)
      throw new McpConfigError(`${where} is over ${MAX_CONFIG_BYTES} bytes: not an MCP config.`);
    text = data.toString('utf8');
  } catch (err) {
    if (err instanceof McpConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new McpConfigError(
      code === 'ENOENT'
        ? `${where} is not a file in the worker's MCP config directory.`
        : `${where} cannot be read (${code ?? 'error'}).`,
    );
  }
  return parseMcpConfig(text, where, { quote: false });
}
