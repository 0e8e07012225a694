import { helloActivities } from '../kit/hello-activity';
import { helloWorkflow } from '../kit/hello-workflow';
import { createTimeSkippingEnv, saveHistoryIfRecording, testConnection, withWorker } from '../kit/temporal';

describe('test kit', () => {
  it("runs a workflow on the run's Temporal server with a real worker", async () => {
    const result = await withWorker({ activities: helloActivities() }, async ({ client, taskQueue }) => {
      const handle = await client.workflow.start(helloWorkflow, {
        args: ['kit'],
        taskQueue,
        workflowId: `hello-${taskQueue}`,
      });
      const value = await handle.result();
      await saveHistoryIfRecording(handle, 'hello-workflow');
      return value;
    });
    expect(result).toBe('Hello, kit!');
  });

  it('replays every workflow task when the cache is off', async () => {
    const result = await withWorker(
      { activities: helloActivities(), maxCachedWorkflows: 0 },
      async ({ client, taskQueue }) =>
        client.workflow.execute(helloWorkflow, { args: ['no cache'], taskQueue, workflowId: `hello-${taskQueue}` }),
    );
    expect(result).toBe('Hello, no cache!');
  });

  it('lists the project search attributes on the server', async () => {
    const { client, namespace } = await testConnection();
    const response = await client.connection.operatorService.listSearchAttributes({ namespace });
    expect(Object.keys(response.customAttributes ?? {})).toEqual(
      expect.arrayContaining([
        'DurableAgentKind',
        'DurableAgentPhase',
        'DurableAgentModel',
        'DurableAgentStatus',
        'DurableAgentAwaitingApproval',
        'DurableAgentCostUsd',
      ]),
    );
  });

  it('runs a workflow in the time-skipping environment on the installed test server', async () => {
    const env = await createTimeSkippingEnv();
    try {
      const result = await withWorker({ env, activities: helloActivities() }, async ({ client, taskQueue }) =>
        client.workflow.execute(helloWorkflow, { args: ['time'], taskQueue, workflowId: `hello-${taskQueue}` }),
      );
      expect(result).toBe('Hello, time!');
    } finally {
      await env.teardown();
    }
  });
});
