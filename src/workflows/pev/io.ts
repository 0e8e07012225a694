/** The PEV workflow's own activities (prompt loading, reuse of a stored tool result). */
import { proxyActivities } from '@temporalio/workflow';
import type { PevActivities } from '../../shared/pev';

export function createPevIO(options: { taskQueue?: string } = {}): PevActivities {
  const queue = options.taskQueue ? { taskQueue: options.taskQueue } : {};
  const { loadPevPrompts } = proxyActivities<PevActivities>({
    ...queue,
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['PevPromptsError'] },
    summary: 'load PEV prompts',
  });
  const { reuseToolResult } = proxyActivities<PevActivities>({
    ...queue,
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 5, nonRetryableErrorTypes: ['AgentStoreError', 'PevReuseError'] },
    summary: 'reuse tool result',
  });
  return { loadPevPrompts, reuseToolResult };
}
