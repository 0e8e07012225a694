/**
 * `schedule create | list | describe | pause | unpause | trigger | delete`: agent runs that start
 * on Temporal Schedules, every interval or at cron times, with the same run options as `run`.
 */
import { formatTable, when } from '../render-list';
import { Option, type Command } from 'commander';
import {
  AgentSchedules,
  OVERLAP_POLICIES,
  type AgentScheduleView,
  type OverlapPolicy,
  type ScheduledRun,
} from '../../client/schedules';
import { statusWithReason } from '../render-run';
import { UsageError } from '../exit-codes';
import { duration, type RunOptions } from '../option-parsers';
import { startFlags, startOptionsOf } from '../start-options';
import { json, kindsOf, withAgents, type AgentCommandDeps } from './agent-deps';
import { usd } from '../../common/decimal';

interface CreateFlags extends RunOptions {
  every?: number;
  cron?: string;
  overlap: OverlapPolicy;
  paused?: boolean;
  note?: string;
}

/** A run the schedule started: when, how it ended (or that it still works) and what it cost. */
function recentRun(r: ScheduledRun): string {
  const outcome = r.status ? statusWithReason(r.status, r.stopReason) : 'unknown (the run cannot be read)';
  const cost = r.costUsd !== undefined ? `, ${usd(r.costUsd)}${r.status === 'running' ? ' so far' : ''}` : '';
  return `  ${r.id} started ${when(r.startedAt)}: ${outcome}${cost}`;
}

function formatSchedule(s: AgentScheduleView): string {
  const state = s.paused ? `paused${s.note ? ` (${s.note})` : ''}` : 'active';
  return [
    `schedule ${s.name}: ${s.timing}, overlap ${s.overlap ?? 'skip'}, ${state}`,
    `starts: ${s.kind ?? '?'} runs on ${s.model ?? '?'} (task queue "${s.taskQueue ?? '?'}")`,
    `task: ${s.task ?? '?'}`,
    `next: ${s.paused ? '- (paused)' : s.nextRuns.length ? s.nextRuns.slice(0, 3).map(when).join(', ') : '-'}`,
    ...(s.recentRuns.length ? ['recent runs:', ...s.recentRuns.map(recentRun)] : ['recent runs: -']),
    ...(s.runningRuns?.length ? [`running: ${s.runningRuns.join(', ')}`] : []),
    `taken: ${s.actionsTaken ?? 0}, skipped for overlap: ${s.skippedOverlap ?? 0}, created ${when(s.createdAt)}`,
  ].join('\n');
}

function formatSchedules(schedules: readonly AgentScheduleView[]): string {
  const rows = schedules.map((s) => [
    s.name,
    s.timing,
    s.paused ? 'paused' : 'active',
    when(s.nextRuns[0]),
    s.recentRuns.at(-1)?.id ?? '-',
  ]);
  return formatTable(['NAME', 'WHEN', 'STATE', 'NEXT RUN', 'LAST RUN'], rows);
}

export function registerScheduleCommands(program: Command, deps: AgentCommandDeps): void {
  const schedule = program
    .command('schedule')
    .description('Start agent runs on a schedule (Temporal Schedules): every interval or at cron times.');
  const withSchedules = <T>(fn: (schedules: AgentSchedules) => Promise<T>) =>
    withAgents(deps, (agents) => fn(new AgentSchedules(agents)));

  const kinds = kindsOf(deps);
  startFlags(
    schedule
      .command('create')
      .description('Create a schedule that starts a run on TASK, with the run options of `run`, at each of its times.')
      .argument('<name>', 'the schedule name (letters, digits, . - _); its runs get ids <name>-<time>'),
    kinds,
  )
    .option('--every <duration>', 'start a run every DURATION (e.g. 30m, 1h, 1d; at least 1s)', duration)
    .option('--cron <expr>', 'start a run at the times of a cron expression (UTC), e.g. "0 9 * * MON-FRI"')
    .addOption(
      new Option('--overlap <policy>', 'when a run is due while the last one still works')
        .choices(OVERLAP_POLICIES)
        .default('skip'),
    )
    .option('--paused', 'create it paused (start it with `schedule unpause`)')
    .option('--note <text>', 'a note kept with the schedule (why it is paused)')
    .option('--json', 'print the schedule as JSON')
    .action(async (name: string, taskArg: string | undefined, o: CreateFlags & { json?: boolean }) => {
      if ((o.every === undefined) === (o.cron === undefined))
        throw new UsageError('give the schedule exactly one of --every DURATION or --cron EXPR');
      const run = await startOptionsOf(taskArg, o, deps.env, kinds);
      await withAgents(deps, async (agents) => {
        const created = await new AgentSchedules(agents).create(name, run, {
          timing: o.every !== undefined ? { everyMs: o.every } : { cron: o.cron ?? '' },
          overlap: o.overlap,
          ...(o.paused ? { paused: true } : {}),
          ...(o.note ? { note: o.note } : {}),
        });
        deps.out(
          o.json
            ? json(created)
            : `schedule ${name} created: ${created.timing}, overlap ${o.overlap}` +
                `${created.paused ? ', paused' : `; next run ${when(created.nextRuns[0])}`}`,
        );
      });
    });

  schedule
    .command('list')
    .description('List the schedules that start agent runs.')
    .option('--json', 'print as JSON')
    .action((o: { json?: boolean }) =>
      withSchedules(async (schedules) => {
        const all = await schedules.list();
        deps.out(o.json ? json(all) : all.length ? formatSchedules(all) : 'no schedules');
      }),
    );

  schedule
    .command('describe')
    .description('Show a schedule: when it runs, the run it starts, its next and recent runs.')
    .argument('<name>')
    .option('--json', 'print as JSON')
    .action((name: string, o: { json?: boolean }) =>
      withSchedules(async (schedules) => {
        const s = await schedules.describe(name);
        deps.out(o.json ? json(s) : formatSchedule(s));
      }),
    );

  const note: [string, string] = ['--note <text>', 'why (shown by describe)'];
  /** The commands that change one schedule: each sends its change and says what it did. */
  const changes: {
    name: string;
    description: string;
    option?: [string, string];
    change(schedules: AgentSchedules, name: string, o: { note?: string; force?: boolean }): Promise<string>;
  }[] = [
    {
      name: 'pause',
      description: 'Stop starting runs until `schedule unpause`; running runs go on.',
      option: note,
      change: (schedules, name, o) => schedules.pause(name, o.note).then(() => `schedule ${name} paused`),
    },
    {
      name: 'unpause',
      description: "Start runs again at the schedule's times.",
      option: note,
      change: (schedules, name, o) => schedules.unpause(name, o.note).then(() => `schedule ${name} unpaused`),
    },
    {
      name: 'trigger',
      description: 'Start a run of the schedule now (its overlap policy applies); a paused schedule is refused.',
      option: ['--force', 'start the run even while the schedule is paused (it stays paused)'],
      change: (schedules, name, o) =>
        schedules
          .trigger(name, { whilePaused: o.force === true })
          .then((s) =>
            s.paused
              ? `schedule ${name} triggered while paused: one run starts now, and the schedule stays paused`
              : `schedule ${name} triggered`,
          ),
    },
    {
      name: 'delete',
      description: 'Delete a schedule; the runs it started go on.',
      change: (schedules, name) => schedules.delete(name).then(() => `schedule ${name} deleted`),
    },
  ];
  for (const { name: command, description, option, change } of changes) {
    const sub = schedule.command(command).description(description).argument('<name>');
    if (option) sub.option(...option);
    sub.action((name: string, o: { note?: string; force?: boolean }) =>
      withSchedules(async (schedules) => deps.out(await change(schedules, name, o))),
    );
  }
}
