/**
 * Tenants and priorities of runs (docs/fleet.md): a run's tenant is the fairness key and its
 * priority the priority key of every activity it schedules, so the server shares each queue
 * among tenants by weight and serves higher priorities first.
 */
import type { Priority } from '@temporalio/common';
import type { FleetSpec } from '../contracts/run-spec';
import { inRange, type NumberRange } from '../common/decimal';
import { definedFields } from '../common/type-helpers';

/** A tenant name: a fairness key and a search-attribute value, so short and plain. */
const TENANT_KEY = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$/;

/** Priority keys Temporal orders by: 1 first, 5 last; runs without one are served as 3. */
export const PRIORITY_RANGE: NumberRange = { what: 'a whole number', min: 1, max: 5, integer: true };

/** A problem with a tenant name, or undefined when it can be a fairness key. */
export function tenantProblem(tenant: unknown): string | undefined {
  if (typeof tenant === 'string' && TENANT_KEY.test(tenant)) return undefined;
  return (
    `tenant "${String(tenant)}" is not a valid key: 1 to 64 characters, letters, digits and . _ : @ -, ` +
    'starting with a letter or digit'
  );
}

/** A problem with a priority, or undefined when it is a whole number from 1 to 5. */
export function priorityProblem(priority: unknown): string | undefined {
  if (inRange(priority, PRIORITY_RANGE)) return undefined;
  return `priority must be a whole number from 1 (first) to 5 (last), got ${String(priority)}`;
}

/** A tenant's fairness weight: its share of a backlog against tenants of weight 1. */
export const TENANT_WEIGHT: NumberRange = { what: 'a number', min: 0.001, max: 1000 };

/** Problems with a run's place in the fleet, one line each. */
export function fleetProblems(fleet: FleetSpec | undefined): string[] {
  if (fleet === undefined) return [];
  return [
    ...(fleet.tenant === undefined ? [] : [tenantProblem(fleet.tenant)]),
    ...(fleet.priority === undefined ? [] : [priorityProblem(fleet.priority)]),
    ...(fleet.expectedCostUsd === undefined || (Number.isFinite(fleet.expectedCostUsd) && fleet.expectedCostUsd > 0)
      ? []
      : [`expectedCostUsd must be a number of dollars above 0, got ${String(fleet.expectedCostUsd)}`]),
  ].flatMap((p) => p ?? []);
}

/** The priority of a run's activities (and its workflow), or undefined for a run with neither. */
export function runPriority(fleet: FleetSpec | undefined): Priority | undefined {
  if (fleet?.tenant === undefined && fleet?.priority === undefined) return undefined;
  return definedFields({ priorityKey: fleet.priority, fairnessKey: fleet.tenant });
}
