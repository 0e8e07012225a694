/** The agent commands in this process, bound to a test server's client and task queue. */
import { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { registerAgentCommands } from '../../src/cli/commands/agent-commands';
import { AgentClient } from '../../src/client';

export interface AgentCli {
  /** Runs one command (a fresh parser each time, so no option carries over); resolves with what it printed. */
  run(...args: string[]): Promise<string>;
  /** Everything printed so far by every command, tokens included, also while a command still runs. */
  printed(): string;
}

export function agentCli(client: Client, taskQueue: string, env: NodeJS.ProcessEnv = {}): AgentCli {
  let printed = '';
  return {
    async run(...args) {
      // Commands may overlap (one waits while another steers): each keeps its own output too.
      let own = '';
      const print = (text: string) => {
        own += text;
        printed += text;
      };
      const program = new Command('durable-agents')
        .exitOverride()
        .configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
      registerAgentCommands(program, {
        connect: async () => ({ agents: new AgentClient(client, taskQueue), close: async () => undefined }),
        out: (text) => print(`${text}\n`),
        write: print,
        env,
      });
      await program.parseAsync(['node', 'durable-agents', ...args]);
      return own.replace(/\n$/, '');
    },
    printed: () => printed,
  };
}
