/** Stops the dev server the global setup started, if any. */
export default async function globalTeardown(): Promise<void> {
  await globalThis.__durableAgentsDevServer?.stop();
  globalThis.__durableAgentsDevServer = undefined;
}
