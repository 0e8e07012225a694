export {
  StoreError,
  type ContentStore,
  type ConversationLog,
  type DeletedCounts,
  type LogEntry,
  type StoreErrorCode,
  type StoredConversation,
  type SummaryRecord,
  type WriteOrder,
} from './content-store';
export { DEFAULT_STORE_DIR, FileContentStore, STORE_DIR_ENV, defaultStoreDir } from './file-store';
export { openStore, storeFromEnv } from './from-env';
export { STORE_URL_ENV, SCHEMA_VERSION, redactUrl } from './postgres-schema';
export { PostgresContentStore } from './postgres-store';
