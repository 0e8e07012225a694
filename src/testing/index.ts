/** `durable-agents/testing`: the fake LLM provider for tests and offline demos. */
export * from './fake-provider';
