/** The PEV workflow's own activities (prompt preparation, reuse of a stored tool result); both heartbeat. */
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { proxyActivities } from '@temporalio/workflow';
import type { PevActivities } from '../../contracts/pev-activities';
import { HEARTBEAT_TIMEOUT_MS } from '../../contracts/heartbeats';

export function createPevIO(options: { taskQueue?: string } = {}): PevActivities {
  const queue = options.taskQueue ? { taskQueue: options.taskQueue } : {};
  const { preparePevPrompts } = proxyActivities<PevActivities>({
    ...queue,
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: [AGENT_FAILURE.pevPrompts] },
    summary: 'prepare PEV prompts',
  });
  const { reuseToolResult } = proxyActivities<PevActivities>({
    ...queue,
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: { maximumAttempts: 5, nonRetryableErrorTypes: [AGENT_FAILURE.store, AGENT_FAILURE.pevReuse] },
    summary: 'reuse tool result',
  });
  return { preparePevPrompts, reuseToolResult };
}
