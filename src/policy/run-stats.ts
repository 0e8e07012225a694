/**
 * Running totals of a run (the trace's statistics): model calls and their time, each tool's
 * calls, errors and time. Kept up to date from the events as they are recorded, so they stay whole
 * when old events are dropped from state or left behind by continue-as-new. Workflow time only.
 */
import type { RunStats, ToolStats } from '../contracts/run-stats';
import type { AgentEvent } from '../contracts/agent-events';

export function emptyStats(startedAt: number): RunStats {
  return { startedAt, lastEventAt: startedAt, modelCalls: 0, modelMs: 0, modelFailures: 0, tools: {} };
}

function toolStats(stats: RunStats, tool: string): ToolStats {
  // Own properties only: a tool may be named like an Object.prototype member.
  if (!Object.prototype.hasOwnProperty.call(stats.tools, tool))
    stats.tools[tool] = { calls: 0, errors: 0, skipped: 0, totalMs: 0, maxMs: 0 };
  return stats.tools[tool];
}

/** Folds one event into the totals. */
export function recordStats(stats: RunStats, event: AgentEvent): void {
  stats.lastEventAt = Math.max(stats.lastEventAt, event.at);
  switch (event.type) {
    case 'turn_start':
      stats.turnStartedAt = event.at;
      break;
    case 'turn_end':
      stats.modelCalls += 1;
      if (stats.turnStartedAt !== undefined) stats.modelMs += event.at - stats.turnStartedAt;
      stats.turnStartedAt = undefined;
      stats.firstAnswerMs ??= event.at - stats.startedAt;
      break;
    case 'model_failure':
      stats.modelFailures += 1;
      stats.modelFailedAttempts = (stats.modelFailedAttempts ?? 0) + (event.attempts ?? 1);
      break;
    case 'tool_execution': {
      const t = toolStats(stats, event.tool);
      if (event.skipped) {
        t.skipped += 1;
        break;
      }
      t.calls += 1;
      if (event.isError) t.errors += 1;
      t.totalMs += event.durationMs;
      t.maxMs = Math.max(t.maxMs, event.durationMs);
      break;
    }
    default:
      break;
  }
}
