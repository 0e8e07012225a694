import { ApplicationFailure } from '@temporalio/workflow';
import type { AgentResult } from '../../src/contracts/agent-run';

/**
 * Closes as a failed workflow whose non-retryable failure carries `result` in its details: how an
 * agent run that ends in error closes, for the client's reading of such results.
 */
export async function failedRunWorkflow(result: AgentResult): Promise<never> {
  throw ApplicationFailure.create({
    message: `run ${result.id} failed: ${result.error?.message ?? 'error'}`,
    type: 'AgentRunFailed',
    nonRetryable: true,
    details: [result],
  });
}
