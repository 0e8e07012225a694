/**
 * The sub-agents `run` declares: the config file's `agents` (`durable-agents.json`, or the file
 * `DURABLE_AGENTS_CONFIG` names), then `--agents FILE` on top of it by name. The client checks each
 * one when the run starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SubAgents } from '../contracts/sub-agents';
import { resolveConfigPath } from '../llm/llm-config';
import { UsageError } from './exit-codes';

function readJson(file: string, what: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new UsageError(`${what} ${file} cannot be read as JSON: ${reason}`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The sub-agents of a run started by the CLI; undefined when none is declared. */
export function readSubAgents(
  file: string | undefined,
  env: Record<string, string | undefined>,
): SubAgents | undefined {
  const configPath = resolveConfigPath(undefined, env);
  const config = configPath && fs.existsSync(configPath) ? readJson(configPath, 'the config file') : undefined;
  const fromConfig = isRecord(config) && isRecord(config.agents) ? config.agents : {};
  let fromFile: Record<string, unknown> = {};
  if (file) {
    const resolved = path.resolve(file);
    const parsed = readJson(resolved, '--agents');
    const agents = isRecord(parsed) && isRecord(parsed.agents) ? parsed.agents : parsed;
    if (!isRecord(agents))
      throw new UsageError(`--agents ${resolved} must hold a JSON object of sub-agents by name (or { "agents": … })`);
    fromFile = agents;
  }
  const all = { ...fromConfig, ...fromFile } as SubAgents;
  return Object.keys(all).length > 0 ? all : undefined;
}
