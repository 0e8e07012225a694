/**
 * `replay`: replays workflow histories (files, runs by id, or the runs a visibility query lists)
 * against the workflow code this install runs, one line per history, so a deploy can be checked
 * against the runs it would take over.
 */
import fs from 'node:fs';
import { WorkflowNotFoundError, isGrpcServiceError, type Client } from '@temporalio/client';
import type { Command } from 'commander';
import {
  HistoryInputError,
  outcomeLine,
  readHistoryFile,
  replayEach,
  type RecordedHistory,
  type ReplayOutcome,
} from '../../testing/replay';
import { settingsOf, withTemporal, type GlobalOptions } from '../cli-context';
import { EXIT, UsageError } from '../exit-codes';
import { positiveInt } from '../option-parsers';
import { printError, printLine, printNotice } from '../terminal-text';

const out = (text: string) => printLine(`${text}\n`);

/** gRPC's status codes: the server refused the query; it has no such workflow. */
const GRPC_INVALID_ARGUMENT = 3;
const GRPC_NOT_FOUND = 5;

/** The gRPC status of an error or of the error it wraps (the client's `ServiceError`). */
function grpcError(error: unknown): { code: number; details: string } | undefined {
  if (isGrpcServiceError(error)) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return isGrpcServiceError(cause) ? cause : undefined;
}

interface ReplayFlags {
  workflowId?: string[];
  query?: string;
  limit: number;
  workflows?: string;
  json?: boolean;
}

/** The open runs on the task queue: the runs new workflow code would take over. */
const openRunsQuery = (taskQueue: string): string => `TaskQueue="${taskQueue}" AND ExecutionStatus="Running"`;

function outcomeJson(outcome: ReplayOutcome): string {
  return JSON.stringify({
    name: outcome.name,
    workflowId: outcome.workflowId,
    ...(outcome.runId && { runId: outcome.runId }),
    workflowType: outcome.workflowType,
    status: outcome.status,
    ...(outcome.mismatch?.eventId !== undefined && { eventId: outcome.mismatch.eventId }),
    ...(outcome.mismatch && { recorded: outcome.mismatch.recorded, code: outcome.mismatch.code }),
    ...(outcome.message && { message: outcome.message }),
  });
}

/** Fetches each run's history; an unknown id is reported and skipped. */
async function* runsById(
  client: Client,
  ids: string[],
  namespace: string,
  bad: () => void,
): AsyncGenerator<RecordedHistory> {
  for (const id of ids) {
    try {
      const history = await client.workflow.getHandle(id).fetchHistory();
      yield { name: id, workflowId: id, history };
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError) && grpcError(error)?.code !== GRPC_NOT_FOUND) throw error;
      printError(`no workflow "${id}" in namespace ${namespace}`);
      bad();
    }
  }
}

/** The histories of the first `limit` runs the query lists. */
async function* runsByQuery(client: Client, query: string, limit: number): AsyncGenerator<RecordedHistory> {
  let count = 0;
  try {
    for await (const run of client.workflow.list({ query })) {
      if (count++ >= limit) return;
      const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
      yield { name: run.workflowId, workflowId: run.workflowId, runId: run.runId, history };
    }
  } catch (error) {
    const refused = grpcError(error);
    if (refused?.code === GRPC_INVALID_ARGUMENT)
      throw new UsageError(`the server refused --query ${JSON.stringify(query)}: ${refused.details}`);
    throw error;
  }
}

export function registerReplayCommand(program: Command, globals: () => GlobalOptions, env: NodeJS.ProcessEnv): void {
  program
    .command('replay')
    .description(
      'Replay workflow histories against the workflow code this install runs (or --workflows): one line per ' +
        'history, OK or MISMATCH with the event where the code parted from it. Default: the open runs on ' +
        'the task queue. Exit 1 on any mismatch, 2 on bad input.',
    )
    .argument('[files...]', 'history files (the JSON `temporal workflow show -o json` writes)')
    .option('--workflow-id <id...>', 'replay these workflows (their latest runs), fetched from the server')
    .option('--query <query>', 'replay the runs this visibility query lists')
    .option('--limit <n>', 'at most this many runs of the query', positiveInt, 100)
    .option('--workflows <path>', 'a workflows module of your own (a worker with its own agent kinds), bundled')
    .option('--json', 'one JSON object per history, one per line')
    .action(async (files: string[], flags: ReplayFlags) => {
      if (flags.workflows && !fs.existsSync(flags.workflows))
        throw new UsageError(`--workflows ${flags.workflows}: no such file`);
      let badInput = false;
      const bad = () => (badInput = true);
      const ids = flags.workflowId ?? [];
      const settings = settingsOf(globals(), env);
      const query =
        flags.query ?? (files.length === 0 && ids.length === 0 ? openRunsQuery(settings.taskQueue) : undefined);
      async function* sources(client?: Client): AsyncGenerator<RecordedHistory> {
        for (const file of files) {
          try {
            yield readHistoryFile(file);
          } catch (error) {
            if (!(error instanceof HistoryInputError)) throw error;
            printError(error.message);
            bad();
          }
        }
        if (!client) return;
        yield* runsById(client, ids, settings.namespace, bad);
        if (query !== undefined) yield* runsByQuery(client, query, flags.limit);
      }
      let replayed = 0;
      let mismatched = false;
      const replayAll = async (client?: Client) => {
        for await (const outcome of replayEach(sources(client), { workflowsPath: flags.workflows })) {
          replayed++;
          if (outcome.status !== 'ok') mismatched = true;
          out(flags.json ? outcomeJson(outcome) : outcomeLine(outcome));
        }
      };
      await (ids.length > 0 || query !== undefined ? withTemporal(globals(), env, replayAll) : replayAll());
      if (replayed === 0 && !badInput) printNotice(`nothing to replay: no runs match ${query ?? 'the input'}`);
      process.exitCode = mismatched ? EXIT.failed : badInput ? EXIT.usage : EXIT.ok;
    });
}
