import { createHash } from 'node:crypto';
import { canonicalJson } from '../common/canonical-json';

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
