import { setTimeout as sleep } from 'node:timers/promises';
import { errorText } from '../common/error-text';
import type { Client } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { AGENT_SEARCH_ATTRIBUTES, SEARCH_ATTRIBUTES } from '../contracts/search-attributes';
import { SetupError } from './setup-error';

/** The SDK's indexed value type of a project search attribute. */
function indexedType(name: string) {
  const key = Object.values(AGENT_SEARCH_ATTRIBUTES).find((k) => k.name === name);
  const encoded = key && encodeSearchAttributeIndexedValueType(key.type);
  if (encoded === undefined) throw new Error(`Unknown project search attribute ${name}`);
  return encoded;
}

/**
 * Makes sure the namespace has the project's search attributes (agent runs upsert them, and a
 * missing one fails every workflow task). Registers missing ones; when the server refuses
 * (e.g. Temporal Cloud, where the operator API is closed), a {@link SetupError} says how.
 * Returns the names it registered.
 */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<string[]> {
  let missing: string[];
  try {
    const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
    missing = Object.keys(SEARCH_ATTRIBUTES).filter((name) => !(name in (customAttributes ?? {})));
  } catch (error) {
    throw new SetupError(
      `Could not list the search attributes of namespace ${namespace} (${firstLine(error)}): check that they ` +
        `are registered.`,
    );
  }
  if (missing.length === 0) return [];
  const searchAttributes = Object.fromEntries(missing.map((name) => [name, indexedType(name)]));
  try {
    await client.connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  } catch (error) {
    const how = missing.map((name) => `${name}=${SEARCH_ATTRIBUTES[name]}`).join(', ');
    throw new SetupError(
      `Namespace ${namespace} lacks the search attributes ${how} and registering them failed (${firstLine(error)}): ` +
        'register them (`temporal operator search-attribute create --name <name> --type <type>`, or in ' +
        'Temporal Cloud with tcld) and retry.',
    );
  }
  await queriesTake(client, namespace, missing);
  return missing;
}

/** How long a namespace gets to take newly registered search attributes in its queries and starts. */
const TAKE_WAIT_MS = 30_000;

/**
 * Waits until the front end takes a query that names `names`: on SQL visibility a new attribute is
 * an alias in the namespace's record, which the front end sees only when it next reads that record;
 * a run started before then is refused ("no mapping defined for search attribute").
 */
async function queriesTake(client: Client, namespace: string, names: string[]): Promise<void> {
  const query = names.map((name) => `${name} IS NULL`).join(' AND ');
  const deadline = Date.now() + TAKE_WAIT_MS;
  for (;;) {
    try {
      await client.workflowService.countWorkflowExecutions({ namespace, query });
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new SetupError(
          `Namespace ${namespace} registered the search attributes ${names.join(', ')} but its queries do not ` +
            `take them after ${TAKE_WAIT_MS / 1000} s (${firstLine(error)}): retry in a minute.`,
        );
    }
    await sleep(200);
  }
}

function firstLine(error: unknown): string {
  return errorText(error).split('\n')[0];
}
