/**
 * `durable-agents/testing`: what an application's tests need. The fake LLM provider, a test
 * environment (dev server, worker, fake provider), and replay: record a run's history, replay
 * histories against the workflow code before deploying it.
 */
export * from './fake-provider';
export {
  replayHistories,
  replayEach,
  readHistoryFile,
  outcomeLine,
  HistoryInputError,
  type HistoryInput,
  type Mismatch,
  type RecordedHistory,
  type ReplayOptions,
  type ReplayOutcome,
  type ReplayStatus,
} from './replay';
export { installReplayRuntime } from './replay-runtime';
export { recordHistory, type RecordHistoryOptions, type RecordedHistoryFile } from './record-history';
export { createTestEnvironment, type TestEnvironment, type TestEnvironmentOptions } from './test-environment';
