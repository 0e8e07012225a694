/**
 * The one way the CLI writes to its stdout and stderr. Much of what it prints comes from runs:
 * model answers, tool results, tasks, error messages and names that a model, a fetched page or a
 * file may have written. A terminal acts on control characters in that text (an escape sequence
 * sets the window title, clears the screen, moves the cursor over earlier lines or writes the
 * clipboard), so every write escapes them, whatever stdout is: a file or a pipe read later with
 * `cat` or `less -R` reaches a terminal too.
 */

/**
 * C0 controls but newline and tab, carriage return but in a CRLF line end, DEL and the C1
 * controls (a terminal may take U+009B as CSI).
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/**
 * `text` with each control character written as `\u00XX`. JSON stays valid JSON of the same
 * value: a raw control can only stand inside a JSON string, where `\u00XX` is that character.
 */
export const escapeControls = (text: string): string =>
  text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const line = (text: string): string => (text.endsWith('\n') ? text : `${text}\n`);

/** Prints `text` on stdout as a line (a newline is added unless it ends with one). */
export const printLine = (text: string): void => void process.stdout.write(escapeControls(line(text)));

/** Writes `text` on stdout as it is, but for its control characters (token streams). */
export const printText = (text: string): void => void process.stdout.write(escapeControls(text));

/** Prints an error on stderr in the one form every error takes: `durable-agents: MESSAGE`. */
export const printError = (message: string): void =>
  void process.stderr.write(escapeControls(line(`durable-agents: ${message}`)));

/**
 * Prints a notice on stderr: what a command says beside its output (a run's id and link, what it
 * waits for, the `--verbose` server line). Notices have no prefix, so only errors read
 * `durable-agents: …`; a warning starts with `warning: `.
 */
export const printNotice = (text: string): void => void process.stderr.write(escapeControls(line(text)));

/**
 * The CLI's own control sequence that redraws a terminal's current line as `text`: the one place
 * the CLI sends controls, and `text` (a run's id, status and model) is escaped like any output.
 */
export const redrawLine = (text: string): string => `\r\x1b[2K${escapeControls(text)}`;
