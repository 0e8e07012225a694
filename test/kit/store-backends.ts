/**
 * Both content stores for the store tests, each as two stores over the same data (as two workers,
 * or a worker and a watcher, would have): the file store in a temporary directory and the
 * PostgreSQL store on the jest run's real server (a fresh database).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileContentStore, PostgresContentStore, type ContentStore } from '../../src/store';
import { createTestDatabase } from './postgres';

export interface StoreBackend {
  name: string;
  open(): Promise<{ a: ContentStore; b: ContentStore; cleanup(): Promise<void> }>;
}

export const STORE_BACKENDS: StoreBackend[] = [
  {
    name: 'file store',
    async open() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-contract-'));
      return {
        a: new FileContentStore(dir, { bodyGraceMs: 0 }),
        b: new FileContentStore(dir, { bodyGraceMs: 0 }),
        cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'PostgreSQL store',
    async open() {
      const db = await createTestDatabase();
      const [a, b] = await Promise.all([PostgresContentStore.open(db.url), PostgresContentStore.open(db.url)]);
      return {
        a,
        b,
        cleanup: async () => {
          await a.close();
          await b.close();
          await db.drop();
        },
      };
    },
  },
];
