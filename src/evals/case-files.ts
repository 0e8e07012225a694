/**
 * Reading eval cases from files (docs/evals.md): a JSON file holds one case or a list; a JavaScript
 * module (a TypeScript case file compiled, or run under a loader) exports them as `default` or
 * `cases`. With no files, the JSON files of `evals/`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { errorText } from '../common/error-text';
import { parseCases, type EvalCase } from './eval-case';
import { EvalInputError } from './suite';
import { parseJson } from '../common/json-text';

const MODULES = ['.js', '.cjs', '.mjs', '.ts', '.cts', '.mts'];

/** The case files a directory holds, sorted. */
const filesOf = (dir: string): string[] =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json') || MODULES.includes(path.extname(f)))
    .sort()
    .map((f) => path.join(dir, f));

async function contentOf(file: string): Promise<unknown> {
  if (MODULES.includes(path.extname(file))) {
    try {
      const mod = (await import(path.resolve(file))) as { default?: unknown; cases?: unknown };
      const value = mod.cases ?? mod.default;
      // A CommonJS module imported as ES: its exports are under `default`.
      const inner = value as { cases?: unknown; default?: unknown } | undefined;
      return inner?.cases ?? (inner && 'default' in inner ? inner.default : value);
    } catch (err) {
      throw new EvalInputError(`${file}: cannot be loaded: ${errorText(err)}`);
    }
  }
  try {
    return parseJson(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new EvalInputError(`${file}${err instanceof SyntaxError ? ' is not valid JSON' : ''}: ${errorText(err)}`);
  }
}

/** The cases of the files (a directory: its case files), in order; a bad one throws {@link EvalInputError}. */
export async function readCaseFiles(paths: readonly string[], cwd = process.cwd()): Promise<EvalCase[]> {
  const given = paths.length > 0 ? paths : [path.join(cwd, 'evals')];
  const files: string[] = [];
  for (const p of given) {
    if (!fs.existsSync(p)) throw new EvalInputError(`${p}: no such file or directory`);
    files.push(...(fs.statSync(p).isDirectory() ? filesOf(p) : [p]));
  }
  const cases: EvalCase[] = [];
  for (const file of files) {
    const read = parseCases(await contentOf(file), file);
    if ('problem' in read) throw new EvalInputError(read.problem);
    cases.push(...read.cases);
  }
  return cases;
}
