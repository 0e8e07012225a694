/** The file store's names for runs' files: readable when the id is plain, hashed otherwise. */
import crypto from 'node:crypto';

/** A `.jsonl` file name for any conversation or run id. */
export function fileNameOf(id: string): string {
  if (/^[A-Za-z0-9._-]{1,120}$/.test(id) && !id.startsWith('.')) return `${id}.jsonl`;
  const digest = crypto.createHash('sha256').update(id).digest('hex').slice(0, 32);
  return `${id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60)}-${digest}.jsonl`;
}
