/** A yes/no question to the person at the terminal. */
import readline from 'node:readline';

/**
 * Writes `question` to `output` and reads one line from `input`: true for `y` or `yes` (any case),
 * false for anything else, and false when the input ends before a line.
 */
export function confirm(
  question: string,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<boolean> {
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input, output, terminal: false });
    let answered = false;
    rl.once('close', () => {
      if (!answered) {
        output.write('\n');
        resolve(false);
      }
    });
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      resolve(/^y(es)?$/i.test(answer.trim()));
    });
  });
}
