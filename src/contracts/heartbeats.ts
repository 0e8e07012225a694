/**
 * How a run notices that the worker running one of its activities is gone. Every activity of the
 * project heartbeats each second while it works (`activities/heartbeat.ts`); the worker passes at most
 * one heartbeat per {@link HEARTBEAT_THROTTLE_MS} on to the server, and the workflow gives each
 * activity {@link HEARTBEAT_TIMEOUT_MS}: a killed worker's attempt times out 12 to 14 s after the kill
 * (the timeout after its last heartbeat) and is retried on another worker, while a live worker's
 * heartbeats may arrive up to 12 s late before the server gives up on them.
 *
 * The timeout less the throttle stays above 10 s on purpose: for about 10 s after a worker's last poll
 * the server still takes its sticky queue for a live one, and a workflow task it puts there then waits
 * out the sticky queue's own timeout (another 10 s) before another worker gets it.
 */

/** The heartbeat timeout of the project's activities: model calls, tools and the store's activities. */
export const HEARTBEAT_TIMEOUT_MS = 14_000;

/**
 * The longest the worker holds back an activity's heartbeats (the SDK's `maxHeartbeatThrottleInterval`,
 * which defaults to 80 % of the heartbeat timeout and would leave less than 3 s of slack).
 */
export const HEARTBEAT_THROTTLE_MS = 2_000;
