/**
 * `run --messages FILE.json`: a conversation the run starts from, a JSON array of messages in the
 * project's message model (docs/cli.md), checked before anything is stored or started and passed
 * by reference through the content store the workers read.
 */
import path from 'node:path';
import { initialMessageProblems } from '../policy/initial-messages';
import { UsageError } from './exit-codes';
import { storeForWorkers } from './task-input';
import { readJsonFile } from './json-file';

/**
 * The messages of `file`, stored for the workers: a file that cannot be read or holds a
 * conversation no provider takes is one usage error.
 */
export async function storeMessagesFile(file: string, env: NodeJS.ProcessEnv): Promise<{ hash: string }> {
  const resolved = path.resolve(file);
  const messages = readJsonFile(resolved, '--messages');
  const problems = Array.isArray(messages) ? initialMessageProblems(messages) : ['the file must hold a JSON array'];
  if (problems.length > 0) throw new UsageError(`--messages ${resolved}: ${problems.join('; ')}`);
  return { hash: await storeForWorkers(messages, env) };
}
