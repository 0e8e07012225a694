/**
 * Agent runs on Temporal Schedules: a schedule keeps the start a client would make (workflow type,
 * input, summary, details, search attributes) as its action, and the server starts a run from it
 * every interval or at each cron time. Runs a schedule started carry its name in Temporal's own
 * `TemporalScheduledById` search attribute.
 */
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  type Client,
  type ScheduleDescription,
  type ScheduleOverlapPolicy,
  type ScheduleSpec,
} from '@temporalio/client';
import { formatDuration } from '../common/duration';
import type { AgentWorkflowInput } from '../contracts/agent-workflows';
import { modelLabel } from '../contracts/model-ref';
import type { AgentClient, StartAgentOptions } from './agent-client';
import { AgentClientError } from './client-errors';
import { listEntryOf } from './list-runs';
import { firstLine } from '../policy/search-attribute-values';
import { describeOrExplain } from './run-reads';

/** What a schedule does when its time comes while its last run still works (Temporal's overlap policies). */
export const OVERLAP_POLICIES = [
  'skip',
  'buffer_one',
  'buffer_all',
  'allow_all',
  'cancel_other',
  'terminate_other',
] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** When a schedule starts runs: every `everyMs`, or at the times of a cron expression. */
export type ScheduleTiming = { everyMs: number } | { cron: string };

export interface CreateScheduleOptions {
  timing: ScheduleTiming;
  /** Default `skip`: no run starts while the schedule's last run still works. */
  overlap?: OverlapPolicy;
  /** Create the schedule paused, with this note. */
  paused?: boolean;
  note?: string;
}

/** A schedule as `schedule list` and `schedule describe` show it. */
export interface AgentScheduleView {
  name: string;
  /** `every 1 h` or `cron 0 9 * * MON-FRI`. */
  timing: string;
  paused: boolean;
  note?: string;
  overlap?: OverlapPolicy;
  kind?: string;
  model?: string;
  /** The task's first line. */
  task?: string;
  taskQueue?: string;
  /** Upcoming start times (ISO); none while the schedule is paused. */
  nextRuns: string[];
  /** The runs it started lately, oldest first; `describe` adds how each ended (or that it still works) and its cost. */
  recentRuns: ScheduledRun[];
  /** Runs it started that still work (describe only). */
  runningRuns?: string[];
  actionsTaken?: number;
  skippedOverlap?: number;
  createdAt?: string;
}

/** A run a schedule started, with its outcome when read (`describe`). */
export interface ScheduledRun {
  id: string;
  startedAt: string;
  /** The run's status as `list` shows it: `running`, `completed`, `stopped`, `failed`, `terminated`, …. */
  status?: string;
  stopReason?: string;
  costUsd?: number;
}

/** Memo key under which a schedule keeps how it was asked to run (the server keeps cron only as calendars). */
const TIMING_MEMO = 'durableAgentsTiming';

const NAME_PATTERN = /^[A-Za-z0-9][\w.-]{0,99}$/;

const MIN_EVERY_MS = 1_000;

function specOf(timing: ScheduleTiming): { spec: ScheduleSpec; label: string } {
  if ('everyMs' in timing) {
    if (!Number.isFinite(timing.everyMs) || timing.everyMs < MIN_EVERY_MS)
      throw new AgentClientError('a schedule interval must be at least 1 s');
    return { spec: { intervals: [{ every: timing.everyMs }] }, label: `every ${formatDuration(timing.everyMs)}` };
  }
  const cron = timing.cron.trim();
  if (!cron) throw new AgentClientError('the cron expression is empty');
  return { spec: { cronExpressions: [cron] }, label: `cron ${cron}` };
}

const toServerPolicy = (overlap: OverlapPolicy) => overlap.toUpperCase() as Exclude<ScheduleOverlapPolicy, undefined>;
const fromServerPolicy = (overlap: ScheduleOverlapPolicy): OverlapPolicy | undefined =>
  overlap ? (overlap.toLowerCase() as OverlapPolicy) : undefined;

/** The run settings a schedule's action carries, read back from its input. */
function actionView(description: ScheduleDescription): Partial<AgentScheduleView> {
  const { action } = description;
  const input = action.args?.[0] as AgentWorkflowInput | undefined;
  const config = input?.config;
  return {
    taskQueue: action.taskQueue,
    ...(config ? { kind: config.kind, model: modelLabel(config.model.primary), task: firstLine(config.task) } : {}),
  };
}

function timingOf(memo: Record<string, unknown> | undefined, spec: ScheduleDescription['spec'] | undefined): string {
  const kept = memo?.[TIMING_MEMO];
  if (typeof kept === 'string') return kept;
  const every = spec?.intervals?.[0]?.every;
  return every !== undefined ? `every ${formatDuration(every)}` : 'calendar';
}

/** Turns the SDK's schedule errors into one readable line. */
function explainSchedule(err: unknown, name: string, timing?: ScheduleTiming): unknown {
  if (err instanceof ScheduleNotFoundError) return new AgentClientError(`no schedule named "${name}"`);
  if (err instanceof ScheduleAlreadyRunning)
    return new AgentClientError(`a schedule named "${name}" already exists: choose another name or delete it first`);
  // The SDK reports a spec the server refused (a bad cron expression) as a TypeError with the server's reason.
  if (err instanceof TypeError && timing) {
    const what = 'cron' in timing ? `cron expression "${timing.cron}"` : 'the schedule interval';
    return new AgentClientError(`${what} is invalid: ${err.message.split('\n')[0]}`);
  }
  return err;
}

/** The times a schedule will start runs: the server's next times, none while it is paused (they would not come). */
const nextRunsOf = (s: { state: { paused: boolean }; info: { nextActionTimes: Date[] } }): string[] =>
  s.state.paused ? [] : s.info.nextActionTimes.map((t) => t.toISOString());

/** Creates, reads and controls the schedules that start agent runs. */
export class AgentSchedules {
  constructor(private readonly agents: AgentClient) {}

  /**
   * Creates schedule `name` that starts a run with `run` (checked as `start` checks it) at each time of
   * `options.timing`. Runs get ids `<name>-<time>`; `run.id` is not used.
   */
  async create(name: string, run: StartAgentOptions, options: CreateScheduleOptions): Promise<AgentScheduleView> {
    if (!NAME_PATTERN.test(name))
      throw new AgentClientError(
        `schedule name "${name}" must start with a letter or digit and hold only letters, digits, . - _ (at most 100)`,
      );
    const { spec, label } = specOf(options.timing);
    const overlap = options.overlap ?? 'skip';
    if (!OVERLAP_POLICIES.includes(overlap))
      throw new AgentClientError(`unknown overlap policy "${overlap}"; use one of: ${OVERLAP_POLICIES.join(', ')}`);
    const start = await this.agents.prepareStart(run);
    try {
      await this.agents.client.schedule.create({
        scheduleId: name,
        spec,
        action: { type: 'startWorkflow', ...start, workflowId: name },
        policies: { overlap: toServerPolicy(overlap) },
        memo: { [TIMING_MEMO]: label },
        state: { paused: options.paused === true, ...(options.note ? { note: options.note } : {}) },
      });
    } catch (err) {
      throw explainSchedule(err, name, options.timing);
    }
    // The server computes the next times of every schedule, paused or not: none means none ever comes.
    const { info } = await this.agents.client.schedule.getHandle(name).describe();
    if (info.nextActionTimes.length === 0 && 'cron' in options.timing) {
      await this.control(name, (h) => h.delete());
      throw new AgentClientError(
        `cron expression "${options.timing.cron}" never comes: no date matches it (nothing was created)`,
      );
    }
    return this.describe(name);
  }

  /** The schedules that start agent runs, by name. */
  async list(): Promise<AgentScheduleView[]> {
    const out: AgentScheduleView[] = [];
    for await (const s of this.agents.client.schedule.list()) {
      if (!s.action || !this.agents.kinds.workflowTypes.includes(s.action.workflowType)) continue;
      out.push({
        name: s.scheduleId,
        timing: timingOf(s.memo, s.spec),
        paused: s.state.paused,
        ...(s.state.note ? { note: s.state.note } : {}),
        nextRuns: nextRunsOf(s),
        recentRuns: s.info.recentActions.map((a) => ({
          id: a.action.workflow.workflowId,
          startedAt: a.takenAt.toISOString(),
        })),
      });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Everything about one schedule: timing, policy, the run it starts, its next and recent runs. */
  async describe(name: string): Promise<AgentScheduleView> {
    let d: ScheduleDescription;
    try {
      d = await this.agents.client.schedule.getHandle(name).describe();
    } catch (err) {
      throw explainSchedule(err, name);
    }
    if (!this.agents.kinds.workflowTypes.includes(d.action.workflowType))
      throw new AgentClientError(`schedule "${name}" does not start agent runs (it starts ${d.action.workflowType})`);
    return {
      name,
      timing: timingOf(d.memo, d.spec),
      paused: d.state.paused,
      ...(d.state.note ? { note: d.state.note } : {}),
      overlap: fromServerPolicy(d.policies.overlap),
      ...actionView(d),
      nextRuns: nextRunsOf(d),
      recentRuns: await Promise.all(
        d.info.recentActions.map((a) => this.outcome(a.action.workflow.workflowId, a.takenAt.toISOString())),
      ),
      runningRuns: d.info.runningActions.map((a) => a.workflow.workflowId),
      actionsTaken: d.info.numActionsTaken,
      skippedOverlap: d.info.numActionsSkippedOverlap,
      createdAt: d.info.createdAt.toISOString(),
    };
  }

  async pause(name: string, note?: string): Promise<void> {
    await this.describe(name);
    await this.control(name, (h) => h.pause(note));
  }

  async unpause(name: string, note?: string): Promise<void> {
    await this.describe(name);
    await this.control(name, (h) => h.unpause(note));
  }

  /**
   * Starts a run now, as if its time had come (the overlap policy applies). The server starts it
   * even while the schedule is paused, which stays paused: a paused schedule is refused unless
   * `options.whilePaused`. Returns the schedule as it was.
   */
  async trigger(
    name: string,
    options: { overlap?: OverlapPolicy; whilePaused?: boolean } = {},
  ): Promise<AgentScheduleView> {
    const schedule = await this.describe(name);
    if (schedule.paused && !options.whilePaused)
      throw new AgentClientError(
        `schedule "${name}" is paused${schedule.note ? ` (${schedule.note})` : ''}, so nothing was started: ` +
          `unpause it (durable-agents schedule unpause ${name}), or start one run while it stays paused ` +
          `(durable-agents schedule trigger ${name} --force)`,
      );
    await this.control(name, (h) => h.trigger(options.overlap ? toServerPolicy(options.overlap) : undefined));
    return schedule;
  }

  /** Deletes the schedule; runs it started go on. */
  async delete(name: string): Promise<void> {
    await this.describe(name);
    await this.control(name, (h) => h.delete());
  }

  /** A run the schedule started, with its outcome and cost; only its id and start when it cannot be read. */
  private async outcome(id: string, startedAt: string): Promise<ScheduledRun> {
    const run = await describeOrExplain(this.agents.client, id).then(listEntryOf, () => undefined);
    return {
      id,
      startedAt,
      ...(run?.agentStatus ? { status: run.agentStatus } : {}),
      ...(run?.stopReason ? { stopReason: run.stopReason } : {}),
      ...(run?.costUsd !== undefined ? { costUsd: run.costUsd } : {}),
    };
  }

  private async control(
    name: string,
    op: (h: ReturnType<Client['schedule']['getHandle']>) => Promise<void>,
  ): Promise<void> {
    try {
      await op(this.agents.client.schedule.getHandle(name));
    } catch (err) {
      throw explainSchedule(err, name);
    }
  }
}
