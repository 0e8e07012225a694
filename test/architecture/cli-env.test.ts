/**
 * CLI commands read the environment they are given (`runCli({ env })`, a test's), never the
 * process's behind it: `process.env` appears in a command only as a parameter's default.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');
const DIR = path.join(ROOT, 'src/cli/commands');

/** The lines of `text` that read `process.env` other than as a parameter's default. */
export const directReads = (text: string): string[] =>
  text
    .split('\n')
    .filter((line) => /process\.env/.test(line) && !/env: NodeJS\.ProcessEnv = process\.env[,)]/.test(line));

describe('the environment of CLI commands', () => {
  it('tells a default from a direct read', () => {
    expect(directReads('  env: NodeJS.ProcessEnv = process.env,\nconst x = process.env.X;')).toEqual([
      'const x = process.env.X;',
    ]);
  });

  it('every command reads the environment it is given', () => {
    const reads = fs
      .readdirSync(DIR)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => directReads(fs.readFileSync(path.join(DIR, f), 'utf8')).map((line) => `${f}: ${line.trim()}`));
    expect(reads).toEqual([]);
  });
});
