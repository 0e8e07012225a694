/**
 * The sub-agents `run` declares: the config file's `agents` (`durable-agents.json`, or the file
 * `DURABLE_AGENTS_CONFIG` names), under every run, and `--agents FILE` on top of them by name. The
 * client checks each one when the run starts.
 */
import path from 'node:path';
import type { SubAgents } from '../contracts/sub-agents';
import { cliConfig } from './cli-config';
import { UsageError } from './exit-codes';
import { readJsonFile } from './json-file';
import { isPlainObject } from '../common/type-helpers';

/** The config file's sub-agents, under every run the CLI starts; undefined when it declares none. */
export function configSubAgents(env: NodeJS.ProcessEnv): SubAgents | undefined {
  const agents = cliConfig(env).agents;
  return agents && Object.keys(agents).length > 0 ? (agents as SubAgents) : undefined;
}

/** The sub-agents `--agents FILE` declares, over the config file's by name; undefined without the flag. */
export function readSubAgents(file: string | undefined): SubAgents | undefined {
  if (!file) return undefined;
  const resolved = path.resolve(file);
  const parsed = readJsonFile(resolved, '--agents');
  const agents = isPlainObject(parsed) && isPlainObject(parsed.agents) ? parsed.agents : parsed;
  if (!isPlainObject(agents))
    throw new UsageError(`--agents ${resolved} must hold a JSON object of sub-agents by name (or { "agents": … })`);
  return agents as SubAgents;
}
