import { Command, CommanderError } from 'commander';
import { registerAgentCommands } from './commands/agent-commands';
import { registerCodecServerCommand } from './commands/codec-server-command';
import { registerDemoCommand } from './commands/demo-command';
import { registerDevServerCommand } from './commands/dev-server-command';
import { registerStoreCommands } from './commands/store-commands';
import { registerWorkerCommand } from './commands/worker-command';

/** The `durable-agents` command line. */
export function buildProgram(): Command {
  const program = new Command('durable-agents')
    .description('Run LLM agents as durable Temporal workflows.')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerDevServerCommand(program);
  registerWorkerCommand(program);
  registerDemoCommand(program);
  registerCodecServerCommand(program);
  registerAgentCommands(program);
  registerStoreCommands(program);
  return program;
}

/** Runs the CLI; every failure ends as one line on stderr and a non-zero exit code. */
export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    process.stderr.write(`durable-agents: ${oneLine(error)}\n`);
    if (process.env.DURABLE_AGENTS_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exitCode = 1;
  }
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s*\n\s*/g, ' ').trim() || 'unknown error';
}
