/**
 * How an agent workflow moves between worker versions. On a versioned worker a run is pinned: it
 * ends on the version it began on, so a newer build never takes its tasks (docs/upgrades.md). An
 * unversioned worker must declare no behaviour at all: the server refuses a workflow task that
 * names one without a deployment version.
 */
import type { WorkflowDefinitionOptions } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';

/** Options getter for `setWorkflowOptions`, evaluated by the worker that first runs the workflow code. */
export function pinnedOnVersionedWorkers(): WorkflowDefinitionOptions {
  // An unversioned worker reports its own build id with an empty deployment name.
  return workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'PINNED' } : {};
}

/**
 * Options getter for a workflow that follows the deployment's current version at its next task
 * (the tenant ledger: long-lived, small versioned state, and every run of the fleet needs it).
 */
export function autoUpgradeOnVersionedWorkers(): WorkflowDefinitionOptions {
  return workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'AUTO_UPGRADE' } : {};
}
