/** Stops the dev server and the PostgreSQL server the global setup started, if any. */
export default async function globalTeardown(): Promise<void> {
  await globalThis.__durableAgentsDevServer?.stop();
  globalThis.__durableAgentsDevServer = undefined;
  await globalThis.__durableAgentsPostgres?.stop();
  globalThis.__durableAgentsPostgres = undefined;
}
