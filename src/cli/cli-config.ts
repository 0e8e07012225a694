/**
 * The config file as the CLI reads it (`durable-agents.json`, or the file `DURABLE_AGENTS_CONFIG`
 * names): read once per process, whatever a command asks of it (providers, model entries, limits,
 * sub-agents); a config that cannot be read is a usage error of the command that needs it.
 */
import { errorText } from '../common/error-text';
import { loadLlmConfig, type LlmConfig } from '../llm/llm-config';
import { UsageError } from './exit-codes';

const read = new WeakMap<NodeJS.ProcessEnv, LlmConfig | Error>();

/** The config of the environment `env` (the process's, or a test's): read at its first use. */
export function cliConfig(env: NodeJS.ProcessEnv): LlmConfig {
  let config = read.get(env);
  if (config === undefined) {
    try {
      config = loadLlmConfig({ env });
    } catch (err) {
      config = err instanceof Error ? err : new Error(errorText(err));
    }
    read.set(env, config);
  }
  if (config instanceof Error) throw new UsageError(config.message);
  return config;
}
