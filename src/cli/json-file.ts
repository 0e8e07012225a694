/** The JSON files the CLI's flags name, read and parsed in one way. */
import fs from 'node:fs';
import { parseJson } from '../common/json-text';
import { UsageError } from './exit-codes';

/**
 * The JSON `file` holds (`what`: the flag that named it, for the error): a file that cannot be read,
 * or bad JSON with its line and column, is one usage error.
 */
export function readJsonFile(file: string, what: string): unknown {
  try {
    return parseJson(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    const reason =
      err instanceof SyntaxError
        ? `is not valid JSON: ${err.message}`
        : `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
    throw new UsageError(`${what} ${file} ${reason}`);
  }
}
