import { createHash } from 'node:crypto';
import { canonicalJson } from '../common/canonical-json';
import {
  DEFAULT_TOOL_MAX_OUTPUT_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type ToolCatalogEntry,
} from '../contracts/tool-catalog';

/** Hash of what the model is told about a tool (and which server owns it). */
export function toolFingerprint(
  parts: Pick<ToolCatalogEntry, 'name' | 'description' | 'parameters' | 'server'>,
): string {
  return createHash('sha256')
    .update(canonicalJson([parts.name, parts.description, parts.parameters, parts.server ?? null]))
    .digest('hex')
    .slice(0, 24);
}

/**
 * A catalogue entry with its fingerprint and the defaults of a tool that says nothing else (the
 * default timeout and output cut, no side effects). Keys come in the order of `ToolCatalogEntry`.
 */
export function catalogEntry(
  fields: Pick<ToolCatalogEntry, 'name' | 'description' | 'parameters' | 'mode' | 'source'> &
    Partial<Pick<ToolCatalogEntry, 'timeoutMs' | 'sideEffects' | 'local' | 'dedupe' | 'maxOutputChars' | 'server'>>,
): ToolCatalogEntry {
  const { name, description, parameters, mode, local, dedupe, source, server } = fields;
  return {
    name,
    description,
    parameters,
    mode,
    timeoutMs: fields.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    sideEffects: fields.sideEffects ?? false,
    ...(local === undefined ? {} : { local }),
    ...(dedupe === undefined ? {} : { dedupe }),
    maxOutputChars: fields.maxOutputChars ?? DEFAULT_TOOL_MAX_OUTPUT_CHARS,
    source,
    ...(server === undefined ? {} : { server }),
    fingerprint: toolFingerprint({ name, description, parameters, server }),
  };
}
