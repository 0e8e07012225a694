export { tenantLedgerWorkflow, LEDGER_UPDATES_PER_RUN } from './tenant-ledger';
