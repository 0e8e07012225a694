/**
 * The one parser of the JSON files and values a person writes (config files, `--messages`,
 * `--agents`, case files, `--args`): a syntax error names its line and column, not the character
 * position JSON.parse gives (and for some errors not even that).
 */
import { parse as scanJson, type ParseError } from 'jsonc-parser';

/** A syntax error in JSON text: where it is (1-based) and what is wrong. */
export class JsonSyntaxError extends SyntaxError {
  override name = 'JsonSyntaxError';

  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
  }
}

/** The 1-based line and column of the character at `offset`. */
function placeOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

/**
 * Where strict JSON first goes wrong, by jsonc-parser's scanner (no comments, no trailing commas):
 * JSON.parse names no position for an unexpected token where a value should start.
 */
function firstErrorOffset(text: string): number {
  const errors: ParseError[] = [];
  scanJson(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  return errors[0]?.offset ?? text.length;
}

/** JSON.parse's message without the position or the quoted text it appends. */
const reasonOf = (message: string): string =>
  message
    .replace(/(?: in JSON)? at position \d+[\s\S]*$/, '')
    .replace(/, (?:"|\.\.\.")[\s\S]*is not valid JSON$/, '')
    .replace(/ of JSON input$/, ' of the text');

/** `text` parsed as JSON; a syntax error is a {@link JsonSyntaxError} naming its line and column. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    const stated = /at position (\d+)/.exec(err.message);
    if (stated) {
      const { line, column } = placeOf(text, Number(stated[1]));
      throw new JsonSyntaxError(line, column, reasonOf(err.message));
    }
    // JSON.parse names the character a word broke off at (`fs_read` gives "Unexpected token 's'"):
    // the whole word, where it starts, reads better.
    const offset = firstErrorOffset(text);
    const word = /^[^\s,:[\]{}"]+/.exec(text.slice(offset))?.[0];
    const { line, column } = placeOf(text, offset);
    throw new JsonSyntaxError(line, column, word ? `Unexpected token '${word}'` : reasonOf(err.message));
  }
}
