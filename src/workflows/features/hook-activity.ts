/** An application's hook activity as a run calls it (docs/hooks.md): a regular activity, retried a few times. */
import type { RetryPolicy } from '@temporalio/common';
import type { AgentHookActivities } from '../../contracts/agent-hooks';
import type { RunContext } from '../agent/run-context';

const HOOK_RETRY: RetryPolicy = { maximumAttempts: 3, initialInterval: '1 second' };

/** Calls the activity `name` the run's spec names for `hook` with `input`. */
export function hookActivity<K extends keyof AgentHookActivities>(
  ctx: RunContext,
  hook: K,
  name: string,
  input: Parameters<AgentHookActivities[K]>[0],
  retry: RetryPolicy = HOOK_RETRY,
): ReturnType<AgentHookActivities[K]> {
  const hooks = ctx.io.activities<Record<string, (input: unknown) => Promise<unknown>>>({
    shape: 'regular',
    summary: `hook: ${name}`,
    retry,
  });
  return hooks[name](input) as ReturnType<AgentHookActivities[K]>;
}
