import { escapeControls, redrawLine } from '../../../src/cli/terminal-text';

describe('escapeControls', () => {
  it('writes escape sequences, bells and C1 controls as \\u00XX, and keeps newlines, tabs and CRLF line ends', () => {
    expect(escapeControls('a\x1b]52;c;eA==\x07b\tc\r\nd\u009b2J\x7f')).toBe(
      'a\\u001b]52;c;eA==\\u0007b\tc\r\nd\\u009b2J\\u007f',
    );
  });

  it('escapes a carriage return that would draw over its line', () => {
    expect(escapeControls('rm -rf /\rls')).toBe('rm -rf /\\u000dls');
  });

  it('leaves JSON valid JSON of the same value', () => {
    const value = { text: 'x\u009b31m\u0085y', nested: ['\u0080'] };
    expect(JSON.parse(escapeControls(JSON.stringify(value, null, 2)))).toEqual(value);
  });

  it('leaves other text alone', () => {
    expect(escapeControls('Grüße · 日本 · emoji 🎉 · \\u001b')).toBe('Grüße · 日本 · emoji 🎉 · \\u001b');
  });
});

describe('redrawLine', () => {
  it("sends the CLI's own redraw and escapes the text drawn", () => {
    expect(redrawLine('run \x1b[2J')).toBe('\r\x1b[2Krun \\u001b[2J');
  });
});
