/** The terminal question `approve` asks, fed through streams instead of a terminal. */
import { PassThrough } from 'node:stream';
import { confirm } from '../../../src/cli/confirm';

function ask(answer: string | undefined): { result: Promise<boolean>; shown: () => string } {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  const result = confirm('approve these arguments? [y/N] ', input, output);
  if (answer === undefined) input.end();
  else input.write(answer);
  return { result, shown: () => shown };
}

describe('confirm', () => {
  it('asks the question and takes y or yes in any case as yes', async () => {
    for (const answer of ['y\n', 'Y\n', 'yes\n', ' YES \n']) {
      const q = ask(answer);
      expect(await q.result).toBe(true);
      expect(q.shown()).toBe('approve these arguments? [y/N] ');
    }
  });

  it('takes anything else, an empty line included, as no', async () => {
    for (const answer of ['n\n', '\n', 'yep\n', 'no\n']) expect(await ask(answer).result).toBe(false);
  });

  it('answers no when the input ends before a line', async () => {
    expect(await ask(undefined).result).toBe(false);
  });
});
