/** Worker Deployment Versioning on the test server: making a version current, reading a workflow's version and a version's drainage. */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const { RoutingConfigUpdateState } = temporal.api.enums.v1;

/**
 * Makes `buildId` the deployment's current version, and waits until the task queue routes by it.
 * The server knows a version only once its worker has polled, so a refusal is retried until it
 * does. The deployment reports when the change reached every partition; under load that report can
 * stay "in progress" after the change has landed (temporalio/temporal#11842), so after a while the
 * task queue's own routing, for workflows and activities alike, is taken as the answer.
 */
export async function setCurrentVersion(
  client: Client,
  deploymentName: string,
  buildId: string,
  taskQueue: string,
): Promise<void> {
  const namespace = client.options.namespace;
  // Under load the server may take a minute to pass the change to every partition.
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName,
        buildId,
        identity: 'versioning test',
      });
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const trustQueueAfter = Date.now() + 30_000;
  let last = '';
  while (Date.now() < deadline) {
    const { workerDeploymentInfo: info } = await client.workflowService.describeWorkerDeployment({
      namespace,
      deploymentName,
    });
    const current = info?.routingConfig?.currentDeploymentVersion?.buildId;
    last = `current ${current}, ${RoutingConfigUpdateState[info?.routingConfigUpdateState ?? 0]}`;
    if (current === buildId) {
      if (info?.routingConfigUpdateState === RoutingConfigUpdateState.ROUTING_CONFIG_UPDATE_STATE_COMPLETED) return;
      if (Date.now() > trustQueueAfter && (await queueRoutesTo(client, taskQueue, buildId))) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${deploymentName}:${buildId} never became current on every partition; last: ${last}`);
}

/** Whether the task queue sends both its workflow and its activity tasks to `buildId`. */
async function queueRoutesTo(client: Client, taskQueue: string, buildId: string): Promise<boolean> {
  const { TaskQueueType } = temporal.api.enums.v1;
  for (const taskQueueType of [TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY]) {
    const { versioningInfo } = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType,
    });
    if (versioningInfo?.currentDeploymentVersion?.buildId !== buildId) return false;
  }
  return true;
}

/** The run's versioning as `describe` shows it: its behaviour and the version it is on. */
export async function versioningOf(client: Client, workflowId: string): Promise<{ behavior: string; version: string }> {
  const { raw } = await client.workflow.getHandle(workflowId).describe();
  const info = raw.workflowExecutionInfo?.versioningInfo;
  const version = info?.deploymentVersion;
  return {
    behavior: temporal.api.enums.v1.VersioningBehavior[info?.behavior ?? 0] ?? 'unknown',
    version: `${version?.deploymentName}:${version?.buildId}`,
  };
}

/** Polls `describe-version` until the version's drainage status is `status` (the dev server checks every second). */
export async function drainageReaches(
  client: Client,
  deploymentName: string,
  buildId: string,
  status: 'DRAINING' | 'DRAINED',
): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = 'none';
  while (Date.now() < deadline) {
    const { workerDeploymentVersionInfo: info } = await client.workflowService.describeWorkerDeploymentVersion({
      namespace: client.options.namespace,
      deploymentVersion: { deploymentName, buildId },
    });
    last = temporal.api.enums.v1.VersionDrainageStatus[info?.drainageInfo?.status ?? 0] ?? 'unknown';
    if (last === `VERSION_DRAINAGE_STATUS_${status}`) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`version ${deploymentName}:${buildId} never reached ${status}; last: ${last}`);
}
