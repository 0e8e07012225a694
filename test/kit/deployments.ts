/** Worker Deployment Versioning on the test server: making a version current, reading a workflow's version and a version's drainage. */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const { RoutingConfigUpdateState } = temporal.api.enums.v1;

/**
 * Makes `buildId` the deployment's current version, and waits until every partition of the task
 * queue routes by it. The server knows a version only once its worker has polled, so a refusal is
 * retried until it does.
 */
export async function setCurrentVersion(client: Client, deploymentName: string, buildId: string): Promise<void> {
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
  let last = '';
  while (Date.now() < deadline) {
    const { workerDeploymentInfo: info } = await client.workflowService.describeWorkerDeployment({
      namespace,
      deploymentName,
    });
    const current = info?.routingConfig?.currentDeploymentVersion?.buildId;
    last = `current ${current}, ${RoutingConfigUpdateState[info?.routingConfigUpdateState ?? 0]}`;
    if (
      current === buildId &&
      info?.routingConfigUpdateState === RoutingConfigUpdateState.ROUTING_CONFIG_UPDATE_STATE_COMPLETED
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${deploymentName}:${buildId} never became current on every partition; last: ${last}`);
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
