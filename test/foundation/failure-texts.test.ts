/**
 * The global teardown's scan for "[object Object]" (test/kit/failure-texts.ts) finds it where a run
 * wrote it, naming the run, and passes a run that wrote none. The planted run is a probe, which the
 * scan of the whole test run skips.
 */
import crypto from 'node:crypto';
import { AgentClient } from '../../src/client';
import { PROBE_PREFIX, objectObjectFailures } from '../kit/failure-texts';
import { testConnection } from '../kit/temporal';

describe('the scan of failure texts', () => {
  it('finds "[object Object]" in a history, naming the run, and skips probes unless asked', async () => {
    const { client, address, namespace } = await testConnection();
    const agents = new AgentClient(client, `nobody-polls-${crypto.randomUUID()}`);
    const model = 'anthropic/claude-sonnet-4-6';
    const planted = await agents.start({
      id: `${PROBE_PREFIX}${crypto.randomUUID()}`,
      task: 'Failed: [object Object]',
      model,
    });
    const clean = await agents.start({ id: `${PROBE_PREFIX}${crypto.randomUUID()}`, task: 'Failed: disk full', model });
    try {
      const query = `WorkflowId IN ('${planted}', '${clean}')`;
      const { scanned, found } = await objectObjectFailures(address, namespace, { query, probes: true });
      expect(scanned).toBe(2);
      expect(found).toEqual([expect.stringMatching(new RegExp(`^${planted}: ….*Failed: \\[object Object\\]`))]);
      expect(await objectObjectFailures(address, namespace, { query })).toEqual({ scanned: 0, found: [] });
    } finally {
      for (const id of [planted, clean]) await client.workflow.getHandle(id).terminate('scan test done');
    }
  });
});
