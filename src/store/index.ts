export { StoreError, type ContentStore, type LogEntry, type StoreErrorCode } from './content-store';
export { DEFAULT_STORE_DIR, FileContentStore, STORE_DIR_ENV, defaultStoreDir } from './file-store';
