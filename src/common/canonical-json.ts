/**
 * Canonical JSON: object keys sorted at every level and `undefined` treated as `JSON.stringify`
 * treats it (dropped from objects, `null` in arrays), so equal values always give equal text.
 * Used for hashes that must not depend on key order (approval argument hashes, content hashes,
 * tool fingerprints, tool-call dedupe keys).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
