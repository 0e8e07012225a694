// After each test file: stops the workers a timed-out test left running, closes the file's Temporal
// connection, if it opened one, without loading the SDK otherwise, and kills the processes it started
// and left running (see ./children.ts).
afterAll(async () => {
  for (const [worker, running] of globalThis.__durableAgentsWorkers ?? []) {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
  }
  globalThis.__durableAgentsWorkers = undefined;
  const pending = globalThis.__durableAgentsTestConnection;
  globalThis.__durableAgentsTestConnection = undefined;
  if (pending) await (await pending).connection.close();
});

afterAll(() => {
  for (const child of globalThis.__durableAgentsChildren ?? []) child.kill('SIGKILL');
  globalThis.__durableAgentsChildren = undefined;
});
