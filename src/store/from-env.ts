/** The one place that picks the content store from the environment: worker, CLI commands and tests use it. */
import path from 'node:path';
import type { ContentStore } from './content-store';
import { DEFAULT_STORE_DIR, FileContentStore, STORE_DIR_ENV } from './file-store';
import { STORE_URL_ENV } from './postgres-schema';
import { PostgresContentStore } from './postgres-store';

/**
 * `DURABLE_AGENTS_STORE_URL=postgres://…` selects the PostgreSQL store (connected, schema created
 * or migrated); otherwise the file store in `DURABLE_AGENTS_STORE_DIR` (default `.durable-agents/store`).
 * Throws one clear line when the database cannot be used.
 */
export async function storeFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<ContentStore> {
  const url = env[STORE_URL_ENV]?.trim();
  if (url) return PostgresContentStore.open(url);
  return new FileContentStore(path.resolve(env[STORE_DIR_ENV] || DEFAULT_STORE_DIR));
}
