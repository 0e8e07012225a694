/** `run --client-tools FILE`: the client tools a run declares, read from a JSON file. */
import fs from 'node:fs';
import path from 'node:path';
import type { RunClientTool } from '../contracts/tool-catalog';
import { UsageError } from './exit-codes';
import { parseJson } from '../common/json-text';

/** Reads a JSON array of `{ name, description, parameters }`; the client checks each entry when the run starts. */
export function readClientTools(file: string): RunClientTool[] {
  const resolved = path.resolve(file);
  let parsed: unknown;
  try {
    parsed = parseJson(fs.readFileSync(resolved, 'utf8'));
  } catch (err) {
    const reason =
      err instanceof SyntaxError
        ? `is not valid JSON: ${err.message}`
        : `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
    throw new UsageError(`--client-tools ${resolved} ${reason}`);
  }
  if (!Array.isArray(parsed))
    throw new UsageError(`--client-tools ${resolved} must hold a JSON array of { name, description, parameters }`);
  return parsed as RunClientTool[];
}
