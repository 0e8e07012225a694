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
export { DEFAULT_STORE_DIR, FileContentStore, STORE_DIR_ENV } from './file-store';
export { openStore, type StoreConfig } from './open-store';
export { STORE_URL_ENV, SCHEMA_VERSION, redactUrl } from './postgres-schema';
export { PostgresContentStore } from './postgres-store';
