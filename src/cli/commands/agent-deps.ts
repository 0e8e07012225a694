/** What the agent commands need from outside (a client, the terminal, signals); tests pass their own. */
import type { AgentClient } from '../../client';
import { kindRegistry, type KindEdge, type KindRegistry } from '../../kinds';
import { connectAgents, type GlobalOptions } from '../cli-context';
import { confirm } from '../confirm';
import { printLine, printNotice, printText } from '../terminal-text';

export interface AgentCommandDeps {
  /** A client for one command, the run's Web UI link, and how to release it. */
  connect(): Promise<{ agents: AgentClient; uiLink?(id: string): Promise<string | undefined>; close(): Promise<void> }>;
  /** Prints a line on stdout. */
  out(text: string): void;
  /** Writes text as it is on stdout (token streams); default `out`. */
  write?(text: string): void;
  /** Prints a notice line on stderr (ids, links, warnings), so stdout stays clean for `--json`. */
  note?(text: string): void;
  /** The terminal a progress line may redraw in place; absent or not a TTY: no progress line. */
  progress?: { isTTY?: boolean; write(text: string): boolean | void };
  env: NodeJS.ProcessEnv;
  /** Sets the exit code a command ends with (default: `process.exitCode`). */
  setExitCode?(code: number): void;
  /**
   * Calls `handler` at Ctrl-C while a command waits; returns the function that stops listening. The handler
   * returns the exit code the process ends with.
   */
  onInterrupt?(handler: () => number): () => void;
  /** The command prefix hints repeat (the server flags this command was given). */
  prefix?: string;
  /** Asks the person at the terminal a yes/no question; absent when stdin or stdout is not a terminal. */
  confirm?(question: string): Promise<boolean>;
  /** Agent kinds beyond the built-in ones: their flags, starts and state (the client of `connect` knows them too). */
  kinds?: readonly KindEdge[];
}

/** The deps of the real process: `globals` are read when a command runs; `kinds` beyond the built-in ones. */
export function processDeps(
  globals: () => GlobalOptions & { prefix?: string },
  kinds: readonly KindEdge[] = [],
  env: NodeJS.ProcessEnv = process.env,
): AgentCommandDeps {
  return {
    connect: () => connectAgents(globals(), env, printNotice, kinds),
    out: printLine,
    write: printText,
    note: printNotice,
    progress: process.stderr,
    env,
    setExitCode: (code) => {
      process.exitCode = code;
    },
    onInterrupt: (handler) => {
      const listener = () => process.exit(handler());
      process.once('SIGINT', listener);
      return () => process.off('SIGINT', listener);
    },
    get prefix() {
      return globals().prefix;
    },
    kinds,
    ...(process.stdin.isTTY && process.stdout.isTTY
      ? { confirm: (question: string) => confirm(question, process.stdin, process.stderr) }
      : {}),
  };
}

/** Runs `fn` with a client for one command and releases it afterwards. */
export async function withAgents<T>(
  deps: AgentCommandDeps,
  fn: (agents: AgentClient, uiLink: (id: string) => Promise<string | undefined>) => Promise<T>,
): Promise<T> {
  const { agents, uiLink, close } = await deps.connect();
  try {
    return await fn(agents, uiLink ?? (async () => undefined));
  } finally {
    await close().catch(() => undefined);
  }
}

export const noteOf = (deps: AgentCommandDeps) => (text: string) => deps.note?.(text);

/** The kinds the commands know: the built-in ones and the deps'. */
export const kindsOf = (deps: AgentCommandDeps): KindRegistry => kindRegistry(deps.kinds);

export const hintPrefix = (deps: AgentCommandDeps): string => deps.prefix ?? 'durable-agents';

export const json = (value: unknown): string => JSON.stringify(value, null, 2);
