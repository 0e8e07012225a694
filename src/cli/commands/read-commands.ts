/** Commands that read runs: watch, state, trace, result, list. None needs a worker where the server can answer. */
import { InvalidArgumentError, type Command } from 'commander';
import { AGENT_STATUSES, childTraces, traceOf, type AgentClient, type ListFilters } from '../../client';
import { readRunMessages } from '../../client/run-messages';
import type { RunMessage } from '../../contracts/run-message';
import { openStore, type ContentStore } from '../../store';
import { errorText } from '../../common/error-text';
import { whileOpen } from '../../common/while-open';
import { storeConfig } from '../../worker/worker-config';
import type { AgentEvent } from '../../contracts/agent-events';
import { exitCodeOfStop } from '../exit-codes';
import { decimalArg, positiveInt } from '../option-parsers';
import { errorLine, formatResult, formatState, formatTrace } from '../render-run';
import { formatList } from '../render-list';
import { whileWaiting } from '../run-wait';
import { WatchPrinter } from '../watch-output';
import { hintPrefix, json, kindsOf, noteOf, withAgents, type AgentCommandDeps } from './agent-deps';

interface WatchFlags {
  json?: boolean;
  tokens?: boolean;
  children?: boolean;
  from?: number;
}

/**
 * The content store the environment selects, as the workers' environment does, for the tokens a
 * watch shows; undefined (and a notice) when it cannot be opened: the watch then shows events.
 */
async function tokenStore(deps: AgentCommandDeps): Promise<ContentStore | undefined> {
  try {
    return await openStore(storeConfig(deps.env));
  } catch (err) {
    noteOf(deps)(`the content store cannot be opened (${errorText(err)}): the watch shows no tokens`);
    return undefined;
  }
}

/** Prints a run's watch items until it ends; resolves with the `done` event it printed, if any. */
export async function watchAndPrint(
  deps: AgentCommandDeps,
  agents: AgentClient,
  id: string,
  o: WatchFlags,
): Promise<Extract<AgentEvent, { type: 'done' }> | undefined> {
  const printer = new WatchPrinter(deps.write ?? deps.out, { json: o.json, runId: id });
  const store = o.tokens === false ? undefined : await tokenStore(deps);
  const options = {
    answers: true as const,
    tokens: o.tokens !== false,
    ...(o.from !== undefined ? { fromOffset: o.from } : {}),
    ...(store ? { tokenStream: store } : {}),
    onNotice: (message: string) => {
      printer.endLine();
      noteOf(deps)(message);
    },
  };
  try {
    const items = o.children === false ? agents.watch(id, options) : agents.watch(id, { ...options, children: true });
    for await (const item of items) printer.print(item);
    printer.finish();
    return printer.done;
  } finally {
    await store?.close();
  }
}

const offset = decimalArg({ what: 'an offset', min: 0, integer: true });

/** Commander parser of one of `values`, refusing any other as not `what` (e.g. "a status"). */
const choice =
  <T extends string>(what: string, values: readonly T[]) =>
  (v: string): T => {
    if (!(values as readonly string[]).includes(v))
      throw new InvalidArgumentError(`"${v}" is not ${what} (${values.join(', ')}).`);
    return v as T;
  };

const status = choice('a status', AGENT_STATUSES);

/** Run `id`'s conversation from the store the workers write (as `transcript` reads it); undefined when unreadable. */
async function storedMessages(env: NodeJS.ProcessEnv, id: string): Promise<RunMessage[] | undefined> {
  try {
    return await whileOpen(openStore(storeConfig(env)), (store) => readRunMessages(store, id));
  } catch {
    return undefined;
  }
}

export function registerReadCommands(program: Command, deps: AgentCommandDeps): void {
  const note = noteOf(deps);
  const kinds = kindsOf(deps);
  /** Says so on stderr when a view was built from the result because no worker was there to answer. */
  const fromResultNote = (id: string, view: object) => {
    if ('answeredFrom' in view)
      note(
        `no worker answered for run ${id} (none polls its task queue now): shown from its result ` +
          '(events and steps need a worker)',
      );
  };

  program
    .command('watch')
    .description(
      'Follow a run as it works: its events and, for runs started with --stream, the model tokens and the ' +
        "structured answers of its kind's roles as they fill in; ends when the run ends.",
    )
    .argument('<id>')
    .option('--json', 'print one JSON object per line (topic, offset, event, delta; structured answers as components)')
    .option('--no-tokens', 'events only')
    .option('--no-children', "without the events of the run's child runs (sub-agents)")
    .option('--from <offset>', 'start at this stream offset (default: the oldest kept)', offset)
    .action((id: string, o: WatchFlags) =>
      withAgents(deps, async (agents) => {
        const done = await whileWaiting(deps, agents, id, () => watchAndPrint(deps, agents, id, o), {
          progress: false,
        });
        if (done) deps.setExitCode?.(exitCodeOfStop('', done.stopReason));
      }),
    );

  program
    .command('state')
    .description('Show a run: status, turn, model, usage, pending approvals and client calls.')
    .argument('<id>')
    .option('--json', 'print the full state as JSON')
    .action((id: string, o: { json?: boolean }) =>
      withAgents(deps, async (agents) => {
        const s = await agents.state(id);
        fromResultNote(id, s);
        deps.out(o.json ? json(s) : formatState(s, agents.kinds, hintPrefix(deps)));
      }),
    );

  program
    .command('trace')
    .description(
      "Show a run's trace: model and tool totals and timings, then its steps turn by turn, each child run's " +
        'steps under the call that started it.',
    )
    .argument('<id>')
    .option('--json', 'print the trace as JSON')
    .option('--no-children', "without the traces of the run's child runs (sub-agents)")
    .action((id: string, o: { json?: boolean; children?: boolean }) =>
      withAgents(deps, async (agents) => {
        const s = await agents.state(id);
        fromResultNote(id, s);
        const t = traceOf(s, await storedMessages(deps.env, id));
        if (o.children !== false && s.children?.length)
          t.children = await childTraces(s, (child) => agents.trace(child, { children: true }));
        deps.out(o.json ? json(t) : formatTrace(t));
      }),
    );

  program
    .command('result')
    .description('Wait for a run to end and print its result.')
    .argument('<id>')
    .option('--json', 'print the result as one JSON object')
    .action((id: string, o: { json?: boolean }) =>
      withAgents(deps, async (agents) => {
        const r = await whileWaiting(deps, agents, id, () => agents.result(id));
        deps.out(o.json ? JSON.stringify(r) : formatResult(r));
        const error = errorLine(r);
        if (error) note(error);
        deps.setExitCode?.(exitCodeOfStop(r.status, r.stopReason));
      }),
    );

  program
    .command('list')
    .description('List agent runs, newest first, with their task.')
    .option('--json', 'print as JSON')
    .option('--limit <n>', 'at most this many', positiveInt, 50)
    .option('--status <status>', `only runs in this status (${AGENT_STATUSES.join(', ')})`, status)
    .option(
      '--stop-reason <reason>',
      `only runs that ended this way (${kinds.stopReasons.join(', ')})`,
      choice('a stop reason', kinds.stopReasons),
    )
    .option('--awaiting-approval', 'only runs waiting for an approval')
    .option('--model <spec>', 'only runs on this model')
    .option(
      '--kind <kind>',
      `only runs of this agent kind (${kinds.names.join(', ')})`,
      choice('an agent kind', kinds.names),
    )
    .option('--schedule <name>', 'only runs this schedule started')
    .option('--parent <id>', 'only the child runs (sub-agents) of run ID')
    .option('--tenant <name>', 'only the runs of this tenant (run --tenant)')
    .action(({ json: asJson, ...filters }: ListFilters & { json?: boolean; limit: number }) =>
      withAgents(deps, async (agents) => {
        // Commander sets only the flags given (and --limit's default): the filters as they are.
        const runs = await agents.list(filters);
        deps.out(asJson ? json(runs) : runs.length === 0 ? 'no agent runs' : formatList(runs));
      }),
    );
}
