/** The files the CLI's flags name, read (and parsed, for JSON) in one way. */
import fs from 'node:fs';
import { parseJson } from '../common/json-text';
import { UsageError } from './exit-codes';

/** The text of `file` (`what`: the flag that named it, for the error); one usage error when it cannot be read. */
export function readTextFile(file: string, what: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new UsageError(`${what} ${file} cannot be read: ${reason}`);
  }
}

/** The JSON value of `text`; bad JSON is one usage error, `<what> is not valid JSON: ` with its line and column. */
export function parseJsonText(text: string, what: string): unknown {
  try {
    return parseJson(text);
  } catch (err) {
    throw new UsageError(`${what} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * The JSON `file` holds (`what`: the flag that named it, for the error): a file that cannot be read,
 * or bad JSON with its line and column, is one usage error.
 */
export const readJsonFile = (file: string, what: string): unknown =>
  parseJsonText(readTextFile(file, what), `${what} ${file}`);
