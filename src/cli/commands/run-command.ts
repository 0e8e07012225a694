/**
 * `run`: checks everything it can before a run starts (model specs, MCP file, workspace, limits,
 * payload size), starts the run, says at once which run it is and where to see it, then waits.
 */
import type { Command } from 'commander';
import type { AgentClient } from '../../client';
import type { AgentResult } from '../../contracts/agent-run';
import { exitCodeOfStop, UsageError } from '../exit-codes';
import { checkModelSpecs, unknownModelWarnings } from '../model-check';
import { duration, positiveInt, spec, type RunOptions } from '../option-parsers';
import { errorLine, formatResult, formatSummary } from '../render-run';
import { noWorkerNotice, whileWaiting } from '../run-wait';
import { keyModelOf, startFlags, startOptionsOf } from '../start-options';
import { kindsOf, noteOf, withAgents, type AgentCommandDeps } from './agent-deps';
import { watchAndPrint } from './read-commands';

export function registerRunCommand(program: Command, deps: AgentCommandDeps): void {
  const kinds = kindsOf(deps);
  startFlags(program.command('run'), kinds)
    .description('Start an agent run on TASK and wait for its result (or print its id with --detach).')
    .option(
      '--id <id>',
      "the run id (default: the task's first words and a random suffix); an id used before is refused",
    )
    .option('--detach', 'print the run id and return without waiting')
    .option('--json', 'print the result as one JSON object')
    .option('--watch', 'print events and tokens while the run works, then the result (implies --stream)')
    .action(async (taskArg: string | undefined, o: RunOptions) => {
      if (o.watch && (o.detach || o.json))
        throw new UsageError('--watch prints as the run works; it cannot be combined with --detach or --json');
      const options = await startOptionsOf(taskArg, o, deps.env, kinds);
      const byKey = keyModelOf(o, deps.env);
      if (byKey) noteOf(deps)(`model: ${byKey.model} (${byKey.key} is set; --model names another)`);
      await withAgents(deps, async (agents, uiLink) => {
        const models = [...(o.model ? [o.model] : []), ...(o.fallback ?? []), ...kinds.models(o.agent, options)];
        for (const warning of unknownModelWarnings(models, deps.env)) noteOf(deps)(warning);
        const id = await agents.start({
          ...options,
          ...(o.id ? { id: o.id } : {}),
          ...(o.watch ? { stream: true } : {}),
        });
        await followStarted(deps, agents, id, o, uiLink);
      });
    });
}

/** `fork`: a run from the first turns of an ended run, with its options unless told otherwise. */
export function registerForkCommand(program: Command, deps: AgentCommandDeps): void {
  program
    .command('fork')
    .description(
      "Start a run from the first N turns of run ID (one that has ended): its conversation up to turn N's " +
        'tool results, by reference, then TASK; without TASK the new run answers those results. Model, tools, ' +
        "limits and call settings are the earlier run's unless given.",
    )
    .argument('<id>', 'the run to fork')
    .argument('[task]', 'what to ask after turn N')
    .requiredOption('--at-turn <n>', 'the turns taken over', positiveInt)
    .option('--model <spec>', 'another model for the new run', spec)
    .option('--id <id>', "workflow id of the new run (default: the task's first words and a random suffix)")
    .option('--idle-wait <duration>', 'after an answer, wait this long for a follow-up before completing', duration)
    .option('--detach', 'print the new run id and return')
    .option('--json', 'print the result (or, with --detach, the id) as JSON')
    .option('--watch', 'print events and tokens as the run works')
    .action(
      async (
        source: string,
        task: string | undefined,
        o: Pick<RunOptions, 'model' | 'id' | 'idleWait' | 'detach' | 'json' | 'watch'> & { atTurn: number },
      ) => {
        if (o.watch && (o.detach || o.json))
          throw new UsageError('--watch prints as the run works; it cannot be combined with --detach or --json');
        if (o.model) checkModelSpecs([o.model], deps.env);
        await withAgents(deps, async (agents, uiLink) => {
          const id = await agents.fork(source, {
            atTurn: o.atTurn,
            ...(task ? { task } : {}),
            ...(o.model ? { model: o.model } : {}),
            ...(o.id ? { id: o.id } : {}),
            ...(o.idleWait !== undefined ? { session: { idleWaitMs: o.idleWait } } : {}),
            ...(o.watch ? { stream: true } : {}),
          });
          await followStarted(deps, agents, id, o, uiLink);
        });
      },
    );
}

/** After a start: says which run it is and where to see it, then waits as the flags ask (`run`, `fork`). */
async function followStarted(
  deps: AgentCommandDeps,
  agents: AgentClient,
  id: string,
  o: Pick<RunOptions, 'detach' | 'json' | 'watch'>,
  uiLink: (id: string) => Promise<string | undefined>,
): Promise<void> {
  const note = noteOf(deps);
  const link = await uiLink(id);
  note(`run ${id} started on task queue "${agents.taskQueue}"${link ? `\nWeb UI: ${link}` : ''}`);
  if (o.detach) {
    deps.out(o.json ? JSON.stringify({ id }) : id);
    if (!(await agents.hasWorker())) note(noWorkerNotice(agents.taskQueue, id));
    return;
  }
  let result: AgentResult;
  if (o.watch) {
    const done = await whileWaiting(deps, agents, id, () => watchAndPrint(deps, agents, id, {}), {
      progress: false,
    });
    result = await agents.result(id);
    // The watch has shown the final text and, with its `done` line, how the run ended.
    if (!done) deps.out(formatSummary(result));
  } else {
    // A run that waits for follow-ups shows each answer as it comes; the end then adds only what is new.
    let shown: string | undefined;
    const answered = (text: string) => {
      deps.out(text);
      shown = text;
    };
    result = await whileWaiting(deps, agents, id, () => agents.result(id), o.json ? {} : { answered });
    const unseen = shown === undefined || shown !== result.finalText;
    deps.out(o.json ? JSON.stringify(result) : unseen ? formatResult(result) : `\n${formatSummary(result)}`);
  }
  const error = errorLine(result);
  if (error) note(error);
  deps.setExitCode?.(exitCodeOfStop(result.status, result.stopReason));
}
