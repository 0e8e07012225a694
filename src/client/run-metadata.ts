/**
 * What a run says about itself from the moment it is started, besides its summary, details and search
 * attributes (policy/run-details, policy/search-attribute-values): its id, and the short text that
 * stands for a task passed by reference.
 */
import crypto from 'node:crypto';
import { TASK_ATTRIBUTE_CHARS } from '../contracts/search-attributes';
import { clip } from '../policy/previews';
import { firstLine } from '../policy/search-attribute-values';

/** Characters of the task's words at the start of a run id. */
const ID_WORDS_CHARS = 48;

/**
 * A new run's id: the words of its task's first line, lower case and joined by `-`, then 12 random
 * hex digits (`which-items-of-checklist-md-are-still-open-3f9a1c2b7d4e`). The Web UI's list shows
 * ids and workflow types but no summary, so this is how a list tells runs apart. A task without
 * Latin letters or digits gives `agent-…`.
 */
export function newRunId(task: string): string {
  const words = firstLine(task)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = words.length <= ID_WORDS_CHARS ? words : words.slice(0, ID_WORDS_CHARS).replace(/-[^-]*$/, '');
  return `${cut || 'agent'}-${crypto.randomBytes(6).toString('hex')}`;
}

/** What the run carries as its task when the whole task travels by reference. */
export function taskPointer(task: string, hash: string): string {
  return (
    `The request is the first user message of this conversation (${task.length} characters, stored as ` +
    `${hash.slice(0, 12)}). It begins: ${clip(firstLine(task), TASK_ATTRIBUTE_CHARS)}`
  );
}
