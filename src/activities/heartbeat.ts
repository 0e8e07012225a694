/**
 * The one heartbeat scheme of the worker's activities: while an activity's work runs, it
 * heartbeats every second, whatever the work is doing (waiting for a provider's first byte, a
 * tool, an MCP server). Heartbeats are how Temporal notices a dead worker within the heartbeat
 * timeout the workflows set (`contracts/heartbeats.ts`), and how cancellation reaches the work.
 */
import { Context } from '@temporalio/activity';

/** How often a running activity heartbeats (the SDK throttles what reaches the server). */
const HEARTBEAT_INTERVAL_MS = 1_000;

/** The running activity's context; undefined outside an activity (direct calls in tests and tools). */
export function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** Activities already heartbeating: work nested in one (a tool run by `runTool`) adds no second timer. */
const beating = new WeakSet<Context>();

/**
 * An activity function that heartbeats every {@link HEARTBEAT_INTERVAL_MS} while it runs. The first
 * beat comes after an interval, not at the start: the server's heartbeat timeout runs from the
 * attempt's start either way, and work that ends sooner (most model calls and tool runs) costs the
 * server no heartbeat call. A local activity has no heartbeats (its workflow task's timeout watches
 * it) and gets cancellation without them.
 */
export function heartbeating<A extends unknown[], R>(activity: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    const ctx = activityContext();
    if (!ctx || ctx.info.isLocal || beating.has(ctx)) return activity(...args);
    beating.add(ctx);
    const timer = setInterval(() => ctx.heartbeat(), HEARTBEAT_INTERVAL_MS);
    try {
      return await activity(...args);
    } finally {
      clearInterval(timer);
      beating.delete(ctx);
    }
  };
}
