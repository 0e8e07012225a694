/** The agent commands in this process, bound to a test server's client and task queue. */
import { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { registerAgentCommands } from '../../src/cli/commands/agent-commands';
import { AgentClient, type KindEdge } from '../../src/client';
import { cliDefaults } from '../../src/cli/start-options';

export interface AgentCli {
  /** Runs one command (a fresh parser each time, so no option carries over); resolves with what it printed. */
  run(...args: string[]): Promise<string>;
  /** Everything printed so far by every command, tokens included, also while a command still runs. */
  printed(): string;
  /** Every notice printed on stderr so far (ids, links, no-worker notices). */
  notes(): string;
  /** The exit code the last command set, if it set one. */
  exitCode(): number | undefined;
}

export interface AgentCliOptions {
  /** What a terminal would show of the progress line (the commands see a TTY when given). */
  tty?: (text: string) => void;
  /** Answers the yes/no questions a terminal would be asked (the commands see a terminal when given). */
  confirm?: (question: string) => Promise<boolean>;
  /** Agent kinds beyond the built-in ones, for the commands and their client. */
  kinds?: readonly KindEdge[];
}

export function agentCli(
  client: Client,
  taskQueue: string,
  env: NodeJS.ProcessEnv = {},
  options: AgentCliOptions = {},
): AgentCli {
  let printed = '';
  let notes = '';
  let exitCode: number | undefined;
  return {
    async run(...args) {
      // Commands may overlap (one waits while another steers): each keeps its own output too.
      let own = '';
      const print = (text: string) => {
        own += text;
        printed += text;
      };
      exitCode = undefined;
      const program = new Command('durable-agents')
        .exitOverride()
        .configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
      const tty = options.tty;
      registerAgentCommands(program, {
        connect: async () => ({
          agents: new AgentClient(client, taskQueue, {
            kinds: options.kinds,
            defaults: cliDefaults(env),
            notice: (line) => (notes += `${line}\n`),
          }),
          close: async () => undefined,
        }),
        out: (text) => print(`${text}\n`),
        write: print,
        note: (text) => (notes += text.endsWith('\n') ? text : `${text}\n`),
        ...(tty ? { progress: { isTTY: true, write: tty } } : {}),
        ...(options.confirm ? { confirm: options.confirm } : {}),
        setExitCode: (code) => (exitCode = code),
        env,
        ...(options.kinds ? { kinds: options.kinds } : {}),
      });
      await program.parseAsync(['node', 'durable-agents', ...args]);
      return own.replace(/\n$/, '');
    },
    printed: () => printed,
    notes: () => notes,
    exitCode: () => exitCode,
  };
}
