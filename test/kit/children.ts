import type { ChildProcess } from 'node:child_process';

declare global {
  // The processes a test file started; after-env.ts kills those still running when the file ends.
  var __durableAgentsChildren: Set<ChildProcess> | undefined;
}

/**
 * Makes `child` the test file's own: if it still runs when the file's tests have ended (a test that
 * timed out before stopping it), it is killed, so it cannot outlive the file and answer on a port
 * that another file has taken since.
 */
export function ownChild<T extends ChildProcess>(child: T): T {
  const children = (globalThis.__durableAgentsChildren ??= new Set());
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
