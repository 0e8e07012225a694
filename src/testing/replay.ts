/**
 * Replays recorded workflow histories against workflow code, one result per history: the check
 * to run before deploying workflow code while runs of the old code are still open. The CLI's
 * `replay` command and tests both use it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON, type History } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { DurableAgentsPlugin } from '../worker/plugin';
import { prebuiltBundlePath, projectWorkflowCode, type WorkflowCode } from '../worker/workflow-code';
import { missingWorkflowType, parseMismatch, coreMessage, type Mismatch } from './replay-mismatch';
import { REPLAY_NAME, installReplayRuntime } from './replay-runtime';
import { parseJson } from '../common/json-text';

export type { Mismatch } from './replay-mismatch';

/** A history to replay, already read. */
export interface RecordedHistory {
  /** What results call it: the file path or the workflow id. */
  name: string;
  /** The history: the JSON `temporal workflow show -o json` writes, or the SDK's `History`. */
  history: unknown;
  /** The id the workflow sees during replay. Default: `name`. */
  workflowId?: string;
  /** The run the history came from, when known. */
  runId?: string;
}

/** A history file's path, or a history already read. */
export type HistoryInput = string | RecordedHistory;

/** Which workflow code to replay against. */
export interface ReplayOptions {
  /**
   * A workflows module of your own (`.ts` or `.js`, exporting every workflow function your
   * worker registers), bundled for the replay. Default: the workflows this package's worker runs.
   */
  workflowsPath?: string;
}

/**
 * `ok`: the code makes the commands the history recorded; `mismatch`: it makes others; `failed`:
 * it could not replay the history at all (no such workflow, or the code threw).
 */
export type ReplayStatus = 'ok' | 'mismatch' | 'failed';

/** What replaying one history found. */
export interface ReplayOutcome {
  name: string;
  workflowId: string;
  runId?: string;
  /** The workflow type the history started. */
  workflowType?: string;
  status: ReplayStatus;
  /** Where the code and the history parted, when a mismatch says so in a shape this module reads. */
  mismatch?: Mismatch;
  /** One line saying what went wrong; absent when `ok`. */
  message?: string;
  /** The SDK's error, when there was one. */
  error?: Error;
}

/** A history file that cannot be read, or JSON that is no workflow history. */
export class HistoryInputError extends Error {
  override name = 'HistoryInputError';
}

/** The SDK's history from its JSON form, refusing anything that does not start a workflow. */
function parseHistory(name: string, json: unknown): History {
  const events = (json as { events?: unknown } | null)?.events;
  if (!Array.isArray(events) || events.length === 0)
    throw new HistoryInputError(`${name} is not a workflow history: expected {"events": [...]}`);
  let history: History;
  try {
    history = historyFromJSON(json);
  } catch (error) {
    throw new HistoryInputError(`${name} is not a workflow history: ${(error as Error).message.slice(0, 200)}`);
  }
  if (!history.events?.[0]?.workflowExecutionStartedEventAttributes)
    throw new HistoryInputError(`${name} is not a workflow history: its first event does not start a workflow`);
  return history;
}

/** Reads a history file (the JSON `temporal workflow show -o json` writes). */
export function readHistoryFile(file: string): RecordedHistory & { history: History } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : (error as Error).message;
    throw new HistoryInputError(`cannot read ${file}: ${why}`);
  }
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (error) {
    throw new HistoryInputError(`${file} is not JSON: ${(error as Error).message}`);
  }
  return { name: file, workflowId: path.basename(file, '.json'), history: parseHistory(file, json) };
}

/** The replay worker's workflow code: `workflowsPath` bundled, else the installed workflows, as workers load them. */
function workflowCode(options: ReplayOptions): WorkflowCode {
  return options.workflowsPath
    ? { workflowsPath: path.resolve(options.workflowsPath) }
    : projectWorkflowCode(prebuiltBundlePath(process.env));
}

const workflowTypeOf = (history: History): string | undefined =>
  history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? undefined;

function outcomeOf(input: RecordedHistory & { history: History }, error: Error | undefined): ReplayOutcome {
  const base = {
    name: input.name,
    workflowId: input.workflowId ?? input.name,
    ...(input.runId && { runId: input.runId }),
    workflowType: workflowTypeOf(input.history),
  };
  if (!error) return { ...base, status: 'ok' };
  if (error.name === 'DeterminismViolationError') {
    const mismatch = parseMismatch(error.message, input.history.events ?? []);
    const at = mismatch?.eventId === undefined ? '' : `event ${mismatch.eventId}: `;
    const message = mismatch
      ? `${at}history recorded ${mismatch.recorded}, the code did ${mismatch.code}`
      : coreMessage(error.message);
    return { ...base, status: 'mismatch', ...(mismatch && { mismatch }), message, error };
  }
  const missing = missingWorkflowType(error.message);
  const message = missing ? `the workflow code exports no workflow ${missing}` : coreMessage(error.message);
  return { ...base, status: 'failed', message, error };
}

/** True for the SDK's own `History` (event ids are numbers or Longs there, strings in JSON). */
const isParsed = (history: unknown): history is History =>
  ['object', 'number'].includes(typeof (history as History | null)?.events?.[0]?.eventId);

function loaded(input: HistoryInput): RecordedHistory & { history: History } {
  if (typeof input === 'string') return readHistoryFile(input);
  return { ...input, history: isParsed(input.history) ? input.history : parseHistory(input.name, input.history) };
}

/**
 * Replays each history as it comes (a file is read when its turn comes, so a bad one throws
 * {@link HistoryInputError} after the results before it). Installs a quiet SDK runtime when the
 * process has none yet (see {@link installReplayRuntime}).
 */
export async function* replayEach(
  inputs: Iterable<HistoryInput> | AsyncIterable<HistoryInput>,
  options: ReplayOptions = {},
): AsyncGenerator<ReplayOutcome> {
  installReplayRuntime();
  const pending: (RecordedHistory & { history: History })[] = [];
  async function* histories() {
    for await (const input of inputs) {
      const history = loaded(input);
      pending.push(history);
      yield { workflowId: history.workflowId ?? history.name, history: history.history };
    }
  }
  const replay = Worker.runReplayHistories(
    { replayName: REPLAY_NAME, plugins: [new DurableAgentsPlugin({ workflows: workflowCode(options) })] },
    histories(),
  );
  for await (const result of replay) {
    const input = pending.shift();
    if (input) yield outcomeOf(input, result.error);
  }
}

/**
 * Replays histories (file paths, or histories already read) against the workflow code, and
 * returns one outcome per history in order. Throws {@link HistoryInputError} for a file that
 * cannot be read or is no history, before replaying anything.
 *
 * ```ts
 * const [outcome] = await replayHistories(['test/histories/checkout.json']);
 * expect(outcome.message).toBeUndefined();
 * ```
 */
export async function replayHistories(inputs: HistoryInput[], options: ReplayOptions = {}): Promise<ReplayOutcome[]> {
  const histories = inputs.map(loaded);
  const outcomes: ReplayOutcome[] = [];
  for await (const outcome of replayEach(histories, options)) outcomes.push(outcome);
  return outcomes;
}

/** The one line the CLI prints for an outcome: `OK name`, `MISMATCH name: …` or `FAILED name: …`. */
export function outcomeLine(outcome: ReplayOutcome): string {
  if (outcome.status === 'ok') return `OK ${outcome.name}`;
  return `${outcome.status.toUpperCase()} ${outcome.name}: ${outcome.message ?? 'replay failed'}`;
}
