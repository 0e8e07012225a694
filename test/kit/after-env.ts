// Closes the test file's Temporal connection, if it opened one, without loading the SDK otherwise.
afterAll(async () => {
  const pending = globalThis.__durableAgentsTestConnection;
  globalThis.__durableAgentsTestConnection = undefined;
  if (pending) await (await pending).connection.close();
});
