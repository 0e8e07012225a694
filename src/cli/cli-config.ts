/**
 * The config file as the CLI reads it (`durable-agents.json`, or the file `DURABLE_AGENTS_CONFIG`
 * names): read once per process, whatever a command asks of it (providers, model entries, limits,
 * sub-agents, MCP servers); a config that cannot be read is a usage error of the command that needs it.
 */
import { errorText } from '../common/error-text';
import { configParts, loadLlmConfig, type ConfigPart, type LlmConfig } from '../llm/llm-config';
import { UsageError } from './exit-codes';

interface Read {
  parts: ConfigPart[];
  config: LlmConfig;
}

const read = new WeakMap<NodeJS.ProcessEnv, Read | Error>();

function readOnce(env: NodeJS.ProcessEnv): Read {
  let got = read.get(env);
  if (got === undefined) {
    try {
      const parts = configParts({ env });
      got = { parts, config: loadLlmConfig({ env, parts }) };
    } catch (err) {
      got = err instanceof Error ? err : new Error(errorText(err));
    }
    read.set(env, got);
  }
  if (got instanceof Error) throw new UsageError(got.message);
  return got;
}

/** The config of the environment `env` (the process's, or a test's): read at its first use. */
export const cliConfig = (env: NodeJS.ProcessEnv): LlmConfig => readOnce(env).config;

/** The contents the config was read from (the file's), as the worker reads them. */
export const cliConfigParts = (env: NodeJS.ProcessEnv): ConfigPart[] => readOnce(env).parts;
