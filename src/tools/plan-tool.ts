/** The catalogue entry of the model's plan tool (`update_plan`), answered by the workflow itself. */
import {
  DEFAULT_TOOL_MAX_OUTPUT_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type ToolCatalogEntry,
} from '../contracts/tool-catalog';
import { PLAN_TOOL_SPEC } from '../policy/plan';
import { toolFingerprint } from './fingerprint';

const parameters = PLAN_TOOL_SPEC.parameters as unknown as Record<string, unknown>;

export const planToolEntry: ToolCatalogEntry = {
  name: PLAN_TOOL_SPEC.name,
  description: PLAN_TOOL_SPEC.description,
  parameters,
  mode: 'workflow',
  timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
  sideEffects: false,
  dedupe: false,
  maxOutputChars: DEFAULT_TOOL_MAX_OUTPUT_CHARS,
  source: 'builtin',
  fingerprint: toolFingerprint({ name: PLAN_TOOL_SPEC.name, description: PLAN_TOOL_SPEC.description, parameters }),
};
