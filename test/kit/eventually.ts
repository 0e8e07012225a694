/**
 * Polls `fn` until it returns a value `ok` accepts, for what the server shows some time after the
 * fact (visibility, schedules); fails with the last value after `timeoutMs`.
 */
export async function eventually<T>(
  fn: () => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
