// The floor's workflows (bench/floor.ts): one activity, nothing else; the same activity in a loop.
import { proxyActivities } from '@temporalio/workflow';

const { answer } = proxyActivities<{ answer(): Promise<string> }>({ startToCloseTimeout: '1 minute' });

/** Ends with its one activity's answer. */
export async function oneActivity(): Promise<string> {
  return await answer();
}

/** Calls its activity `turns` times, one after another: a tool loop with nothing else in it. */
export async function activityLoop(turns: number): Promise<number> {
  for (let i = 0; i < turns; i++) await answer();
  return turns;
}
