import { errorText, oneLine } from '../common/error-text';
import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { tracesConfigOf } from '../telemetry/telemetry-config';
import { registerAgentCommands } from './commands/agent-commands';
import { processDeps } from './commands/agent-deps';
import { commandPrefix, type GlobalOptions } from './cli-context';
import { EXIT, exitCodeOfError } from './exit-codes';
import { addHelpExamples } from './help-examples';
import { escapeControls, printError, printNotice } from './terminal-text';
import type { KindEdge } from '../kinds';

/** The package's version, read from its package.json (two levels up from src/cli and dist/cli). */
function packageVersion(): string {
  try {
    const file = path.join(__dirname, '..', '..', 'package.json');
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export interface CliOptions {
  /** Agent kinds beyond the built-in ones: `run --agent` starts them, with their flags; `state` shows them. */
  kinds?: readonly KindEdge[];
  /**
   * The command about to run: of the commands that start servers and workers or manage the fleet,
   * only its own is registered, so a command loads only the modules it needs. Default: all.
   */
  command?: string;
  /** The environment commands read (connection, config file, keys); default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

type Globals = () => GlobalOptions & { prefix?: string };

/*
 * The commands registered on their own, each loaded only when it runs (or for the full help): the
 * worker, the servers and the demo load the worker, the LLM layer and the tools, which the agent
 * commands do without. Listed in the help's order; the agent commands go after the fifth. A
 * command of this list runs without the agent commands registered.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
/** Registers a group's commands: each module's register function takes the program, the globals and the environment. */
type Register = (program: Command, globals: Globals, env: NodeJS.ProcessEnv) => void;

/** A group loaded only when one of its commands runs: `register` names the function its module exports. */
const group = (names: string[], module: string, register: string) => ({
  names,
  register: ((program, globals, env) =>
    (require(`./commands/${module}`) as Record<string, Register>)[register]!(program, globals, env)) as Register,
});

const SEPARATE: { names: string[]; register: Register }[] = [
  group(['dev-server'], 'dev-server-command', 'registerDevServerCommand'),
  group(['worker'], 'worker-command', 'registerWorkerCommand'),
  group(['demo'], 'demo-command', 'registerDemoCommand'),
  group(['codec-server'], 'codec-server-command', 'registerCodecServerCommand'),
  group(['serve'], 'serve-command', 'registerServeCommand'),
  group(['transcript', 'gc'], 'store-commands', 'registerStoreCommands'),
  group(['limits'], 'limits-command', 'registerLimitsCommands'),
  group(['budget'], 'budget-command', 'registerBudgetCommands'),
  group(['replay'], 'replay-command', 'registerReplayCommand'),
  group(['eval'], 'eval-command', 'registerEvalCommands'),
  group(['score'], 'score-command', 'registerScoreCommand'),
];
/* eslint-enable @typescript-eslint/no-require-imports */

/** The `durable-agents` command line. */
export function buildProgram(options: CliOptions = {}): Command {
  let globals: GlobalOptions & { prefix?: string } = {};
  const program = new Command('durable-agents')
    .description('Run LLM agents as durable Temporal workflows.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .addOption(
      new Option('--address <host:port>', 'Temporal front end (default: $TEMPORAL_ADDRESS, else localhost:7233)'),
    )
    .addOption(new Option('--namespace <name>', 'Temporal namespace (default: $TEMPORAL_NAMESPACE, else default)'))
    .addOption(
      new Option(
        '--task-queue <name>',
        "the worker's task queue (default: $DURABLE_AGENTS_TASK_QUEUE, else durable-agents)",
      ),
    )
    .addOption(new Option('--verbose', 'say on stderr which Temporal server and namespace a command uses'))
    .configureOutput({
      outputError: (text, write) =>
        write(escapeControls(`durable-agents: ${oneLine(text.replace(/^error: /, ''))} (see --help)\n`)),
    })
    .exitOverride()
    .hook('preAction', (_program, action) => {
      const options = action.optsWithGlobals<GlobalOptions>();
      globals = { ...options, prefix: commandPrefix(options) };
    });
  const env = options.env ?? process.env;
  const register = (groups: typeof SEPARATE) => groups.forEach((group) => group.register(program, () => globals, env));
  const agentCommands = () =>
    registerAgentCommands(
      program,
      processDeps(() => globals, options.kinds, env),
    );
  const { command } = options;
  const own = SEPARATE.find((group) => command !== undefined && group.names.includes(command));
  if (command === undefined) {
    register(SEPARATE.slice(0, 5));
    agentCommands();
    register(SEPARATE.slice(5));
  } else if (own) {
    register([own]);
  } else {
    agentCommands();
    // A name no command has: every command is there for commander's suggestion.
    if (!program.commands.some((c) => c.name() === command || c.aliases().includes(command))) register(SEPARATE);
  }
  addHelpExamples(program);
  return program;
}

/** Ends quietly when the reader of stdout went away (`list | head -1`). */
function exitOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
    throw error;
  });
}

/** The global options that take a value, which precede the command's name. */
const VALUED_GLOBALS = new Set(['--address', '--namespace', '--task-queue']);

/** The command's name in the arguments: the first that is no option and no global option's value. */
function commandOf(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (VALUED_GLOBALS.has(args[i])) i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  return undefined;
}

/**
 * The commands that serve until they are stopped: each makes no span of its own, which would last
 * the process's life and gather everything it served (a worker's spans are its traced runs' alone).
 */
const SERVING = new Set(['worker', 'dev-server', 'codec-server']);

/**
 * With an OTLP endpoint in the environment, the command runs in a span of its own (`durable-agents
 * run`, …) that the runs it starts continue (docs/observability.md). Its spans are sent before it
 * exits, best effort: for at most a moment, and whether they could be sent never changes its exit code.
 */
async function traced(argv: string[], command: () => Promise<unknown>): Promise<void> {
  const name = commandOf(argv.slice(2));
  const traces = tracesConfigOf(process.env);
  if (!traces || SERVING.has(name ?? '')) return void (await command());
  // Loaded only now: a command that sends no spans loads none of OpenTelemetry.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracing, stopTracing } = require('../telemetry/tracing') as typeof import('../telemetry/tracing');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { inSpan } = require('../common/in-span') as typeof import('../common/in-span');
  startTracing(traces);
  try {
    await inSpan(`durable-agents ${name ?? ''}`.trim(), {}, command);
  } finally {
    await stopTracing();
  }
}

/**
 * Runs the CLI; every failure ends as one line on stderr and an exit code from `EXIT`. A program of
 * your own runs it with your kinds beside the built-in ones (`options.kinds`).
 */
export async function main(argv: string[] = process.argv, options: CliOptions = {}): Promise<void> {
  exitOnClosedPipe(process.stdout);
  exitOnClosedPipe(process.stderr);
  try {
    await traced(argv, () => buildProgram({ command: commandOf(argv.slice(2)), ...options }).parseAsync(argv));
  } catch (error) {
    process.exitCode = exitCodeOfError(error);
    // Commander has printed its own errors, help and version already.
    if (error instanceof CommanderError) return;
    printError(oneLine(errorText(error)) || 'unknown error');
    if (process.env.DURABLE_AGENTS_DEBUG && error instanceof Error) printNotice(`${error.stack}`);
  }
}
