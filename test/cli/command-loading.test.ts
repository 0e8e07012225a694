import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../kit/env';

const run = promisify(execFile);

/** The commands a program built for `command` registers, and whether loading it loaded `packages`. */
async function built(command: string | undefined, packages: string[]) {
  const script = `
    const program = require('./src/cli').buildProgram(${command === undefined ? '{}' : JSON.stringify({ command })});
    const loaded = Object.keys(require.cache);
    console.log(JSON.stringify({
      commands: program.commands.map((c) => c.name()),
      loaded: ${JSON.stringify(packages)}.filter((p) => loaded.some((file) => file.includes('/node_modules/' + p + '/'))),
    }));`;
  const { stdout } = await run(
    process.execPath,
    ['-r', path.join(REPO_ROOT, 'scripts', 'register-ts.js'), '-e', script],
    {
      cwd: REPO_ROOT,
    },
  );
  return JSON.parse(stdout) as { commands: string[]; loaded: string[] };
}

const HEAVY = [
  '@temporalio/worker',
  '@anthropic-ai/sdk',
  'openai',
  '@modelcontextprotocol/sdk',
  '@opentelemetry/sdk-trace-node',
];

describe('the modules a CLI command loads', () => {
  it('an agent command loads none of the worker, the LLM SDKs, the tools or OpenTelemetry', async () => {
    const { commands, loaded } = await built('run', HEAVY);
    expect(commands).toEqual(expect.arrayContaining(['run', 'list', 'approve']));
    expect(commands).not.toContain('worker');
    expect(loaded).toEqual([]);
  }, 60_000);

  it('a command of its own registers only itself; no command or an unknown one registers every command', async () => {
    expect((await built('worker', [])).commands).toEqual(['worker']);
    const every = (await built(undefined, [])).commands;
    expect(every).toEqual(
      expect.arrayContaining(['dev-server', 'worker', 'demo', 'run', 'limits', 'budget', 'replay']),
    );
    expect((await built('wroker', [])).commands).toEqual(expect.arrayContaining(every));
  }, 60_000);
});
