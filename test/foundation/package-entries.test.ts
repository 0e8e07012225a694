/**
 * The package's entry points as a user's code loads them (`require('durable-agents/…')`, resolved
 * through package.json `exports` to the built files): the client entry is src/client.ts, the
 * worker entry src/worker.ts, and each gives what its page says.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../kit/env';

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  main: string;
  exports: Record<string, { default: string; types: string }>;
};

/** What `require(specifier)` exports, by name and type, in a fresh Node process at the repo root. */
function exportsOf(specifier: string): Record<string, string> {
  const script = `const m = require(${JSON.stringify(specifier)});
process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(m).map(([k, v]) => [k, typeof v]))));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: REPO_ROOT, encoding: 'utf8' })) as Record<
    string,
    string
  >;
}

describe('package entry points', () => {
  it('load src/client.ts and src/worker.ts as built', () => {
    expect(pkg.main).toBe('dist/client.js');
    expect(pkg.exports['.'].default).toBe('./dist/client.js');
    expect(pkg.exports['./client']).toEqual({ types: './dist/client.d.ts', default: './dist/client.js' });
    expect(pkg.exports['./worker']).toEqual({ types: './dist/worker.d.ts', default: './dist/worker.js' });
    for (const file of ['src/client.ts', 'src/worker.ts']) expect(fs.existsSync(path.join(REPO_ROOT, file))).toBe(true);
  });

  it('give a client its AgentClient and a worker process its worker, by the names users import', () => {
    expect(exportsOf('durable-agents/client')).toMatchObject({ AgentClient: 'function', traceOf: 'function' });
    expect(exportsOf('durable-agents')).toMatchObject({ AgentClient: 'function' });
    expect(exportsOf('durable-agents/worker')).toMatchObject({
      DurableAgentsPlugin: 'function',
      workerConfig: 'function',
    });
    expect(exportsOf('durable-agents/evals')).toMatchObject({ defineEvalCase: 'function', runEval: 'function' });
  });
});
