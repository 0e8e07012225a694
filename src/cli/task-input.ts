/**
 * Where `run` takes its task from: the argument, stdin (`-`), or a file whose text is stored in
 * the content store and passed by reference (`--task-file FILE`, `-` for stdin).
 */
import { whileOpen } from '../common/while-open';
import { openStore } from '../store';
import { storeConfig } from '../worker/worker-config';
import { UsageError } from './exit-codes';
import { readTextFile } from './json-file';

export interface TaskInput {
  task: string;
  /** Content-store hash of `task` when it travels by reference. */
  taskHash?: string;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Stores `body` in the content store the worker reads bodies from and returns its hash: `run
 * --task-file` writes the task there, `run --messages` the messages.
 */
export async function storeForWorkers(body: unknown, env: NodeJS.ProcessEnv): Promise<string> {
  return whileOpen(openStore(storeConfig(env)), (store) => store.put(body));
}

/**
 * The task of `run`: `arg` (`-` reads stdin), or with `taskFile` the file's text (`-` reads
 * stdin) stored by reference. Exactly one of them must be given, and the task must not be empty.
 */
export async function readTaskInput(
  arg: string | undefined,
  taskFile: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<TaskInput> {
  if (arg !== undefined && taskFile !== undefined)
    throw new UsageError('give the task either as an argument or with --task-file, not both');
  if (arg === undefined && taskFile === undefined)
    throw new UsageError('no task: give it as an argument, `-` to read it from stdin, or --task-file FILE');
  if (taskFile === undefined) {
    const task = arg === '-' ? await readStdin() : (arg ?? '');
    if (!task.trim()) throw new UsageError('the task is empty');
    return { task };
  }
  const task = taskFile === '-' ? await readStdin() : readTextFile(taskFile, '--task-file');
  if (!task.trim()) throw new UsageError(`the task in ${taskFile === '-' ? 'stdin' : taskFile} is empty`);
  return { task, taskHash: await storeForWorkers(task, env) };
}
