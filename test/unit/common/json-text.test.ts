import { JsonSyntaxError, parseJson } from '../../../src/common/json-text';

const errorOf = (text: string): JsonSyntaxError => {
  try {
    parseJson(text);
  } catch (err) {
    return err as JsonSyntaxError;
  }
  throw new Error(`parsed: ${text}`);
};

describe('parseJson', () => {
  it('parses JSON as JSON.parse does', () => {
    expect(parseJson('{"a": [1, "x", null]}')).toEqual({ a: [1, 'x', null] });
  });

  it.each([
    ['a trailing comma', '{\n  "providers": {\n    "x": 1,\n  }\n}', 4, 3, 'Expected double-quoted property name'],
    ['a missing comma', '{\n "a": 1\n "b": 2}', 3, 2, "Expected ',' or '}' after property value"],
    ['a word where a value starts', '{"a":1,\n"b": undefined,\n "c": 3}', 2, 6, "Unexpected token 'undefined'"],
    ['an unquoted string', '{\n  "tools": [fs_read]\n}', 2, 13, "Unexpected token 'fs_read'"],
    ['a bare word', 'abc', 1, 1, "Unexpected token 'abc'"],
    ['text cut short', '{\n  "a": [1,', 2, 11, 'Unexpected end of the text'],
    ['an empty file', '', 1, 1, 'Unexpected end of the text'],
    ['text after the value', '{"a": 1}\nx', 2, 1, 'Unexpected non-whitespace character after JSON'],
  ])('names the line and column of %s', (_what, text, line, column, reason) => {
    const err = errorOf(text);
    expect(err).toBeInstanceOf(SyntaxError);
    expect({ line: err.line, column: err.column, message: err.message }).toEqual({
      line,
      column,
      message: `line ${line}, column ${column}: ${reason}`,
    });
  });
});
