/**
 * The one list of the features every run has (docs/design.md, Features): the run scaffold and the
 * turn call each at its seams (`agent/feature.ts`), in this order. A new feature is a module here
 * and one line in this list.
 */
import type { RunFeature } from '../agent/feature';
import { appHooks } from './app-hooks';
import { clientNotes } from './client-notes';
import { plan } from './plan';
import { servedTools } from './served-tools';
import { spans } from './spans';
import { stopReasonAttribute } from './stop-reason';
import { subAgents } from './sub-agents';
import { tenantBudget } from './tenant-budget';

export const RUN_FEATURES: readonly RunFeature[] = [
  spans,
  clientNotes,
  appHooks,
  tenantBudget,
  plan,
  subAgents,
  stopReasonAttribute,
  servedTools,
];
