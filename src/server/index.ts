export { SetupError } from '../connection/setup-error';
export { findTemporalCli, findTestServer, pythonScriptsDirs, type FoundCli, type CliSource } from './find-cli';
export {
  startDevServer,
  devServerArgs,
  searchAttributeArgs,
  serves,
  type DevServerOptions,
  type RunningDevServer,
} from './dev-server';
export {
  ensureTemporal,
  startLocalServer,
  defaultDbFilename,
  type TemporalServer,
  type LaunchOptions,
  type ServerOrigin,
} from './launcher';
export { runUiUrl, uiBaseUrl, type RunTab } from './web-ui';
export { buildWorkflowBundle } from './workflow-bundle';
export { freePort, isListening } from './ports';
export { parseAddress } from '../connection/connection-settings';
export { ensureSearchAttributes, missingSearchAttributes } from './search-attribute-registration';
