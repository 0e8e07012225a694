/** The PEV workflow's own activities (prompt preparation, reuse of a stored tool result). */
import { proxyActivities } from '@temporalio/workflow';
import type { PevActivities } from '../../contracts/pev-activities';

export function createPevIO(options: { taskQueue?: string } = {}): PevActivities {
  const queue = options.taskQueue ? { taskQueue: options.taskQueue } : {};
  const { preparePevPrompts } = proxyActivities<PevActivities>({
    ...queue,
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['PevPromptsError'] },
    summary: 'prepare PEV prompts',
  });
  const { reuseToolResult } = proxyActivities<PevActivities>({
    ...queue,
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 5, nonRetryableErrorTypes: ['AgentStoreError', 'PevReuseError'] },
    summary: 'reuse tool result',
  });
  return { preparePevPrompts, reuseToolResult };
}
