// Test-only workflows: helloWorkflow with a deliberately changed command sequence (a timer before
// the activity). Replaying a recorded hello history against it must fail with a determinism error,
// which proves the replay gate can fail at all.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { HelloActivities } from '../kit/hello-contract';

const { composeGreeting } = proxyActivities<HelloActivities>({ startToCloseTimeout: '30 seconds' });

export async function helloWorkflow(name: string): Promise<string> {
  await sleep('1 second');
  return composeGreeting(name);
}
