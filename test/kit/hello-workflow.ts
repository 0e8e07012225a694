import { proxyActivities } from '@temporalio/workflow';
import type { HelloActivities } from './hello-contract';

const { composeGreeting } = proxyActivities<HelloActivities>({ startToCloseTimeout: '30 seconds' });

/** The smallest real workflow: one activity call. Smoke-tests a worker and the replay gate. */
export async function helloWorkflow(name: string): Promise<string> {
  return composeGreeting(name);
}
