/**
 * Checks made before a run starts, so that a bad model spec or MCP file is a usage error and no
 * workflow is started: model specs against the providers the worker side knows (the LLM layer's
 * spec parsing over the same config file and environment), MCP files with the worker's parser.
 */
import { loadLlmConfig, parseModelSpec } from '../llm';
import { readMcpConfigFile } from '../tools';
import { UsageError } from './exit-codes';

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Refuses a spec whose provider no config knows, or that the registry cannot parse. */
export function checkModelSpecs(specs: readonly string[], env: NodeJS.ProcessEnv = process.env): void {
  if (specs.length === 0) return;
  let config;
  try {
    config = loadLlmConfig({ env });
  } catch (err) {
    throw new UsageError(messageOf(err));
  }
  for (const spec of specs) {
    try {
      parseModelSpec(spec, config);
    } catch (err) {
      throw new UsageError(messageOf(err));
    }
  }
}

/** Refuses an MCP config file the worker could not use. */
export async function checkMcpFile(file: string): Promise<void> {
  try {
    await readMcpConfigFile(file);
  } catch (err) {
    throw new UsageError(messageOf(err));
  }
}
