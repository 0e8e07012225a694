import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so equal schemas hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Hash of what the model is told about a tool (and which server owns it). */
export function toolFingerprint(parts: {
  name: string;
  description: string;
  parameters: unknown;
  server?: string;
}): string {
  return createHash('sha256')
    .update(canonicalJson([parts.name, parts.description, parts.parameters, parts.server ?? null]))
    .digest('hex')
    .slice(0, 24);
}
