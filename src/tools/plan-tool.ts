/** The catalogue entry of the model's plan tool (`update_plan`), answered by the workflow itself. */
import type { ToolCatalogEntry } from '../contracts/tool-catalog';
import { PLAN_TOOL_SPEC } from '../policy/plan';
import { catalogEntry } from './fingerprint';

export const planToolEntry: ToolCatalogEntry = catalogEntry({
  name: PLAN_TOOL_SPEC.name,
  description: PLAN_TOOL_SPEC.description,
  parameters: PLAN_TOOL_SPEC.parameters as unknown as Record<string, unknown>,
  mode: 'workflow',
  dedupe: false,
  source: 'builtin',
});
