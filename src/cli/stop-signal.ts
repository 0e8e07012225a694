/** Resolves at the first SIGINT (Ctrl-C) or SIGTERM. */
export function waitForStopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
