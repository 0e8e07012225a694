/** Catalogue entries of the client tools a run declares itself (see `RunClientTool`). */
import {
  DEFAULT_TOOL_MAX_OUTPUT_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type RunClientTool,
  type ToolCatalogEntry,
} from '../contracts/tool-catalog';
import { toolFingerprint } from './fingerprint';

/** The entry of a run's client tool: answered by the calling application, never run on a worker. */
export function runClientToolEntry({ name, description, parameters }: RunClientTool): ToolCatalogEntry {
  return {
    name,
    description,
    parameters,
    mode: 'client',
    timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
    sideEffects: false,
    maxOutputChars: DEFAULT_TOOL_MAX_OUTPUT_CHARS,
    source: 'run',
    fingerprint: toolFingerprint({ name, description, parameters }),
  };
}
