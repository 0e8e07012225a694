/** `run --client-tools FILE`: the client tools a run declares, read from a JSON file. */
import path from 'node:path';
import type { RunClientTool } from '../contracts/tool-catalog';
import { UsageError } from './exit-codes';
import { readJsonFile } from './json-file';

/** Reads a JSON array of `{ name, description, parameters }`; the client checks each entry when the run starts. */
export function readClientTools(file: string): RunClientTool[] {
  const resolved = path.resolve(file);
  const parsed = readJsonFile(resolved, '--client-tools');
  if (!Array.isArray(parsed))
    throw new UsageError(`--client-tools ${resolved} must hold a JSON array of { name, description, parameters }`);
  return parsed as RunClientTool[];
}
