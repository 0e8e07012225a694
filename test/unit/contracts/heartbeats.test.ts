import { HEARTBEAT_THROTTLE_MS, HEARTBEAT_TIMEOUT_MS } from '../../../src/contracts/heartbeats';
import { WORKER_TUNING } from '../../../src/worker/worker-tuning';

/** How long the server keeps taking a gone worker's sticky queue for a live one after its last poll. */
const STICKY_POLLER_WINDOW_MS = 10_000;

describe('heartbeat timing', () => {
  it('times a killed attempt out only after the server has given up on its worker’s sticky queue', () => {
    // The attempt's last heartbeat came at most one throttle interval before the kill.
    expect(HEARTBEAT_TIMEOUT_MS - HEARTBEAT_THROTTLE_MS).toBeGreaterThanOrEqual(STICKY_POLLER_WINDOW_MS + 2_000);
  });

  it('is what the project’s worker passes on', () => {
    expect(WORKER_TUNING.maxHeartbeatThrottleInterval).toBe(HEARTBEAT_THROTTLE_MS);
    // The SDK's own throttle, 80 % of the timeout, would be longer.
    expect(HEARTBEAT_THROTTLE_MS).toBeLessThan(0.8 * HEARTBEAT_TIMEOUT_MS);
  });
});
