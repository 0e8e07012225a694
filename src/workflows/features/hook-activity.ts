/** An application's hook activity as a run calls it (docs/hooks.md): a regular activity, retried a few times. */
import type { RetryPolicy } from '@temporalio/common';
import type { AgentHookActivities } from '../../contracts/agent-hooks';
import type { Proxied } from '../agent/agent-io';
import type { RunContext } from '../agent/run-context';

const HOOK_RETRY: RetryPolicy = { maximumAttempts: 3, initialInterval: '1 second' };

/** The activity `name` the run's spec names for `hook`. */
export function hookActivity<K extends keyof AgentHookActivities>(
  ctx: RunContext,
  hook: K,
  name: string,
  retry: RetryPolicy = HOOK_RETRY,
): Proxied<Record<string, AgentHookActivities[K]>>[string] {
  const hooks = ctx.io.activities<Record<string, AgentHookActivities[K]>>({
    shape: 'regular',
    summary: `hook: ${name}`,
    retry,
  });
  return hooks[name];
}
